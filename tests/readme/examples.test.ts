import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/wait.js'
import { printed, startSandbox, stopSandbox, type StartedSandbox } from '../helpers/sandbox.js'

/** The documents whose examples run, in reading order: the README's sandbox first, then the API guide's. */
const DOCUMENTS = ['README.md', 'docs/api.md']
const read = (path: string): string => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8')

/** Every `curl` command of a document's sh blocks (and `NAME=$(curl …)` that later ones use), continuation lines joined, comments dropped. */
function curlExamples (markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map(match => match[1])
  return blocks.flatMap(block => block.replace(/\\\n\s*/g, ' ').split('\n'))
    .map(line => line.trim()).filter(line => /^(curl |[A-Z_]+=\$\(curl )/.test(line))
}

/** The JSON body of an answer, also when curl printed the headers first (-i). */
function bodyOf (output: string): Record<string, unknown> {
  const start = output.startsWith('HTTP/') ? output.indexOf('\r\n\r\n') + 4 : 0
  return JSON.parse(output.slice(start)) as Record<string, unknown>
}

/** What each kind of example answers in the sandbox. */
function expected (example: string): Record<string, unknown> {
  // the audience rules (CONTRACT.md 14): each refusal is the example's point
  if (example.includes('"to":"15550000009"')) return { ok: false, code: 'upstream_error', upstream: expect.objectContaining({ code: 131050 }) }
  if (example.includes('"to":"+15550000009"')) return { ok: false, code: 'recipient_opted_out' }
  if (example.includes('no_such_template')) return { ok: false, code: 'template_not_found' }
  if (example.includes('/api/suppressions.php')) return example.includes('-X POST') ? { ok: true, suppression: expect.objectContaining({ reason: 'manual' }) } : example.includes('-X DELETE') ? { ok: true } : { ok: true, suppressions: expect.any(Array) }
  if (example.includes('/api/erasures.php')) return { ok: true, erasure: expect.objectContaining({ id: expect.stringMatching(/^era_/), status: expect.stringMatching(/^(pending|completed)$/) }) }
  if (example.includes('/api/limits.php')) return { ok: true, phone_numbers: expect.arrayContaining([expect.objectContaining({ messaging_limit: expect.objectContaining({ tier: 'TIER_2K', limit: 2000 }) })]) }
  if (example.includes('/api/usage.php')) return { ok: true, rows: expect.any(Array) }
  if (example.includes('/api/campaigns.php')) return { ok: true, campaign: expect.objectContaining({ id: expect.stringMatching(/^cmp_/), counts: expect.objectContaining({ total: 2 }) }) }
  if (example.includes('/api/media.php')) return { ok: true, media_id: expect.stringMatching(/^\d+$/), type: 'image', mime_type: 'image/png' }
  if (example.includes('/api/inbound.php')) return { ok: true, messages: expect.any(Array) }
  if (example.includes('/api/conversations.php?to=')) return { ok: true, messages: expect.arrayContaining([expect.objectContaining({ direction: 'outbound' })]) }
  if (example.includes('/api/conversations.php')) return { ok: true, conversations: expect.arrayContaining([expect.objectContaining({ phone_number_id: expect.any(String) })]) }
  if (example.includes('Prefer: respond-async')) return { ok: true, status: 'queued', id: expect.stringMatching(/^msg_/) }
  if (example.includes('?id=')) return { ok: true, message: expect.objectContaining({ id: expect.stringMatching(/^msg_/), history: expect.any(Array) }) }
  if (example.includes('?client_reference=')) return { ok: true, messages: expect.arrayContaining([expect.objectContaining({ client_reference: expect.any(String) })]) }
  return { ok: true, status: 'sent', id: expect.stringMatching(/^msg_/), wamid: expect.stringMatching(/^wamid\./) }
}

async function bash (command: string, env: Record<string, string>): Promise<string> {
  return await new Promise((resolve, reject) => {
    execFile('bash', ['-c', command], { env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout) => error ? reject(error) : resolve(stdout))
  })
}

describe('README and docs/api.md examples, verbatim against npm run sandbox', () => {
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

  const examples = DOCUMENTS.flatMap(path => curlExamples(read(path)))

  it('finds the examples', () => {
    // 23 when the API guide moved out of the README: the two of the sandbox, 21 of docs/api.md
    expect(examples.length).toBeGreaterThanOrEqual(23)
    for (const path of DOCUMENTS) expect(curlExamples(read(path)).length, path).toBeGreaterThanOrEqual(2)
    expect(examples.some(example => example.includes('--data-urlencode'))).toBe(true)
  })

  // in the documents' order, as a reader pastes them: a variable one example sets, a later one uses
  const variables: Record<string, string> = {}
  it.each(examples.map(example => [example.slice(0, 90), example]))('%s…', async (_title, example) => {
    // only the port differs from the documents: 3000 may be taken on the machine running the tests
    const command = example.replaceAll('127.0.0.1:3000', `127.0.0.1:${sandbox.port}`)
    const assignment = /^([A-Z_]+)=\$\(/.exec(command)
    if (assignment) {
      variables[assignment[1]] = await bash(`${command}; printf %s "$${assignment[1]}"`, { OUTBOUND_KEY: key, ...variables })
      expect(variables[assignment[1]]).toMatch(/^msg_/)
      return
    }
    expect(bodyOf(await bash(command, { OUTBOUND_KEY: key, ...variables }))).toMatchObject(expected(example))
  })

  it('shows the demo receiver verifying the events of those sends', async () => {
    await waitFor(async () => /\[events\] verified message\.sent whmsg_/.test(sandbox.output()), { what: 'a verified event', timeoutMs: 15_000 })
    expect(sandbox.output()).not.toContain('did not verify')
  })
})
