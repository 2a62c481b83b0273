import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SELF = 'tests/house/test-helpers.test.ts'
const TESTS = readdirSync(join(ROOT, 'tests'), { withFileTypes: true, recursive: true })
  .filter(entry => entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name))
  .map(entry => relative(ROOT, join(entry.parentPath, entry.name)))
  .filter(file => !file.startsWith('tests/helpers/') && file !== SELF)
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8')

/** The loops whose body sleeps and reads the clock: a poll until a deadline, which is waitFor's to do. */
function pollLoops (source: string): string[] {
  return [...source.matchAll(/\b(while\s*\(|for\s*\(\s*;\s*;\s*\)|do\s*\{)/g)]
    .map(match => source.slice(match.index, match.index + 500))
    .filter(loop => /setTimeout\(/.test(loop) && /Date\.now\(\)/.test(loop))
}

// Commands that are not the gateway, run by the tests of what runs them.
const RUNS_COMMANDS = {
  // the documents' curl lines, verbatim, in bash
  'tests/readme/examples.test.ts': /execFile\('bash'/,
  // the README's shell lines for the sandbox's key, in sh
  'tests/sandbox/sandbox.test.ts': /execFile\)\('sh'/,
  // whether a Docker runtime answers, before a testcontainer
  'tests/db/testcontainers.test.ts': /execFileSync\('docker'/,
  // CONTRACT.md 17's proof: a logical dump by pg_dump of the database an erasure ran on
  'tests/privacy/helpers.ts': /execFileSync\('pg_dump'/
} as Record<string, RegExp>

describe('the house: the tests\' helpers, one of each in tests/helpers', () => {
  it('reads the tests', () => {
    expect(TESTS.length).toBeGreaterThan(100)
  })

  it('signs webhooks in tests/helpers/webhook.ts only', () => {
    // an HMAC of a body is the X-Hub-Signature-256 of a webhook: signature() and postWebhook() make it
    expect(TESTS.filter(file => /\bcreateHmac\b|\bsignBody\b/.test(text(file)))).toEqual([])
  })

  it('waits with tests/helpers/wait.ts only', () => {
    // waitFor polls and names what it waited for; a helper of a folder may call it, not be another
    const ownHelper = /\bfunction\s+(until|waitUntil|poll|eventually)\s*\(|\bconst\s+(until|waitUntil|poll|eventually)\s*=\s*(async\s*)?\(/
    expect(TESTS.filter(file => ownHelper.test(text(file)))).toEqual([])
    expect(TESTS.filter(file => pollLoops(text(file)).length > 0)).toEqual([])
  })

  it('starts processes with tests/helpers only (the server, the sandbox, npm start, the CLI)', () => {
    const spawning = TESTS.filter(file => /^import (?!type )[^\n]* from 'node:child_process'/m.test(text(file)))
    expect(spawning.filter(file => !RUNS_COMMANDS[file]?.test(text(file)))).toEqual([])
    // SIGKILL is a started server's kill(), which waits for its exit
    expect(TESTS.filter(file => /kill\('SIGKILL'\)/.test(text(file)))).toEqual([])
  })
})
