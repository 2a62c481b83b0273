import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/wait.js'
import { printed, startSandbox, stopSandbox, type StartedSandbox } from '../helpers/sandbox.js'

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8')

/** Every `curl` command of the README's sh blocks, continuation lines joined, comments dropped. */
function curlExamples (markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map(match => match[1])
  return blocks.flatMap(block => block.replace(/\\\n\s*/g, ' ').split('\n'))
    .map(line => line.trim()).filter(line => line.startsWith('curl '))
}

async function bash (command: string, env: Record<string, string>): Promise<string> {
  return await new Promise((resolve, reject) => {
    execFile('bash', ['-c', command], { env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout) => error ? reject(error) : resolve(stdout))
  })
}

describe('README examples, verbatim against npm run sandbox', () => {
  let dataDir: string
  let sandbox: StartedSandbox
  let key: string

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-readme-'))
    sandbox = await startSandbox(dataDir)
    key = printed(sandbox.banner, /export OUTBOUND_KEY=(obk_live_\S+)/)!
  }, 120_000)
  afterAll(async () => {
    if (sandbox) await stopSandbox(sandbox)
    await rm(dataDir, { recursive: true, force: true })
  })

  const examples = curlExamples(README)

  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5)
    expect(examples.some(example => example.includes('--data-urlencode'))).toBe(true)
  })

  it.each(examples.map(example => [example.slice(0, 90), example]))('%s…', async (_title, example) => {
    // only the port differs from the README: 3000 may be taken on the machine running the tests
    const command = example.replaceAll('127.0.0.1:3000', `127.0.0.1:${sandbox.port}`)
    const answer = JSON.parse(await bash(command, { OUTBOUND_KEY: key }))
    expect(answer).toMatchObject({ ok: true, status: 'sent', wamid: expect.stringMatching(/^wamid\./) })
  })

  it('shows the demo receiver verifying the events of those sends', async () => {
    await waitFor(async () => /\[events\] verified message\.sent whmsg_/.test(sandbox.output()), { what: 'a verified event', timeoutMs: 15_000 })
    expect(sandbox.output()).not.toContain('did not verify')
  })
})
