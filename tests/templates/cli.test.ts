import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { runCli } from '../helpers/cli.js'
import { orderUpdate } from './helpers.js'

const account = defaultAccount()
const stdoutJson = (result: { stdout: string }) => JSON.parse(result.stdout.trim())

/** `outbound templates plan|apply` as a CI job runs them (CONTRACT.md 20): the embedded database, no server running. */
describe('outbound templates plan and apply', () => {
  let emulator: Emulator
  let dataDir: string
  let env: Record<string, string>
  let workspace: string
  beforeAll(async () => {
    emulator = await startEmulator({ templateReviewMs: 50 })
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-templates-'))
    env = { DATA_DIR: dataDir, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret }
    workspace = (await runCli(['workspace', 'create', '--name', 'Acme', '--plan', 'growth'], env)).json.id
    expect((await runCli(['connect', '--workspace', workspace, '--waba-id', account.wabaId, '--access-token', account.accessToken], env)).code).toBe(0)
  }, 60_000)
  afterAll(async () => {
    await emulator.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('plan lists what to create; apply --wait creates and waits for the review; plan is then unchanged', async () => {
    const file = join(dataDir, 'templates.yaml')
    await writeFile(file, stringify({ templates: [orderUpdate('cli_order_update'), orderUpdate('cli_order_update', { language: 'de' })] }))
    const plan = await runCli(['templates', 'plan', '--workspace', workspace, '--file', file], env)
    expect(plan.code).toBe(0)
    expect(plan.json).toEqual({ ok: true, create: [{ name: 'cli_order_update', language: 'en_US' }, { name: 'cli_order_update', language: 'de' }], update: [], unchanged: 0, problems: [] })
    const applied = await runCli(['templates', 'apply', '--workspace', workspace, '--file', file, '--wait', '30'], env)
    expect(applied.code).toBe(0)
    expect(applied.json).toEqual({ ok: true, results: [
      { name: 'cli_order_update', language: 'en_US', action: 'create', status: 'APPROVED' },
      { name: 'cli_order_update', language: 'de', action: 'create', status: 'APPROVED' }
    ] })
    const again = await runCli(['templates', 'plan', '--workspace', workspace, '--file', file, '--prune'], env)
    expect(again.json).toMatchObject({ ok: true, create: [], update: [], unchanged: 2, problems: [] })
    expect(again.json.delete).toEqual(expect.arrayContaining([{ name: 'hello_world', language: 'en_US' }]))
    const audit = await runCli(['audit', 'list', '--workspace', workspace], env)
    expect(audit.json.entries.filter((entry: { action: string }) => entry.action === 'template.created')).toHaveLength(2)
  }, 120_000)

  it('plan prints its problems on stdout and exits 1, so CI fails; a JSON file works as YAML does; an unreadable file is exit 1', async () => {
    const file = join(dataDir, 'broken.json')
    await writeFile(file, JSON.stringify([orderUpdate('cli_bad', { category: 'PROMOTION' })]))
    const plan = await runCli(['templates', 'plan', '--workspace', workspace, '--file', file], env)
    expect(plan.code).toBe(1)
    expect(stdoutJson(plan)).toEqual({ ok: false, create: [], update: [], unchanged: 0, problems: [{ name: 'cli_bad', language: 'en_US', field: 'category', error: expect.stringContaining('UTILITY') }] })
    const apply = await runCli(['templates', 'apply', '--workspace', workspace, '--file', file], env)
    expect(apply.code).toBe(1)
    expect(stdoutJson(apply).problems).toHaveLength(1)
    await writeFile(file, 'templates: [unclosed')
    const unreadable = await runCli(['templates', 'plan', '--workspace', workspace, '--file', file], env)
    expect(unreadable.code).toBe(1)
    expect(unreadable.json.error).toMatch(/YAML nor JSON/)
    expect((await runCli(['templates', 'plan', '--workspace', workspace, '--file', file, '--prune=yes'], env)).code).toBe(2)
  }, 60_000)
})
