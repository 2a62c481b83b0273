import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCOPES } from '../../src/access/scopes.js'
import { CommandError } from '../../src/cli/command.js'
import { parseInvocation } from '../../src/cli/invocation.js'
import { loadConfig } from '../../src/config.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { runCli } from '../helpers/cli.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'

/**
 * `outbound keys create --scopes --phone-number-ids`, `keys list`, and `audit list` after an operator's
 * session: on the embedded database in a temporary DATA_DIR, or on TEST_DATABASE_URL's PostgreSQL.
 * The commands run in this process (argv parsed as the CLI parses it, then the command on a runtime
 * of its own), since each spawned `outbound` pays the start-up of tsx and the database; the real
 * executable is run for the usage error and for the final `audit list`.
 */
describe('outbound: scoped keys and the audit log at the command line', () => {
  const account = defaultAccount()
  let emulator: Emulator
  let dataDir: string
  let database: TestDatabase | undefined
  let env: Record<string, string>
  let workspace: string
  let runtime: Runtime | undefined

  /** One command as `outbound` runs it: its printed object, or the CommandError it exits 1 with. */
  async function cli (...argv: string[]): Promise<any> {
    const invocation = await parseInvocation(argv)
    if (invocation.kind !== 'run') throw new Error('not a command')
    const config = loadConfig(env)
    runtime ??= await openRuntime(config, 'cli')
    return await invocation.command.run(invocation.args, runtime, config)
  }

  beforeAll(async () => {
    emulator = await startEmulator()
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-access-cli-'))
    const serverUrl = process.env.TEST_DATABASE_URL
    database = serverUrl ? await createPostgresDatabase(serverUrl) : undefined
    // nothing answers at PUBLIC_URL: the webhook registration fails and is reported, the connection is kept
    env = { DATA_DIR: dataDir, GRAPH_API_URL: emulator.url, WEBHOOKS_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'http://127.0.0.1:9', ...(database && { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }) }
    workspace = (await cli('workspace', 'create', '--name', 'Audited', '--plan', 'free')).id
  }, 120_000)
  afterAll(async () => {
    await runtime?.close()
    await emulator?.close()
    await database?.drop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('creates keys with scopes and numbers, refusing an unknown scope (exit 2) and a number not connected (exit 1)', async () => {
    expect(await cli('connect', '--workspace', workspace, '--waba-id', account.wabaId, '--access-token', account.accessToken)).toMatchObject({ connection_id: expect.any(String) })
    const second = account.phoneNumbers[1].id

    // the real executable: a usage error is found before any database is opened
    const unknown = await runCli(['keys', 'create', '--workspace', workspace, '--scopes', 'messages:read,messages:delete'], env)
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe('')
    expect(unknown.json.error).toMatch(/^usage: outbound keys create .*--scopes: unknown scope "messages:delete"/)

    const foreign = cli('keys', 'create', '--workspace', workspace, '--phone-number-ids', `${second},999`)
    await expect(foreign).rejects.toThrow(CommandError)
    await expect(foreign).rejects.toThrow('"999" is not connected')

    const limited = await cli('keys', 'create', '--workspace', workspace, '--name', 'reader', '--scopes', 'messages:read, usage:read', '--phone-number-ids', second)
    expect(limited).toMatchObject({ name: 'reader', secret: expect.stringMatching(/^obk_live_/), scopes: ['messages:read', 'usage:read'], phone_number_ids: [second] })
    const full = await cli('keys', 'create', '--workspace', workspace, '--name', 'everything')

    expect((await cli('keys', 'list', '--workspace', workspace)).keys).toEqual(expect.arrayContaining([
      expect.objectContaining({ id: limited.id, scopes: ['messages:read', 'usage:read'], phone_number_ids: [second], last_used_at: null }),
      expect.objectContaining({ id: full.id, scopes: [...SCOPES], phone_number_ids: null, last_used_at: null })
    ]))
  })

  it('lists every change the operator made, newest first, as the command line with no address and no secret', async () => {
    await cli('workspace', 'plan', '--workspace', workspace, '--plan', 'growth')
    const endpoint = await cli('webhooks', 'add', '--workspace', workspace, '--url', 'http://127.0.0.1:9/events')
    await cli('webhooks', 'remove', '--id', endpoint.id)
    const key = (await cli('keys', 'list', '--workspace', workspace)).keys.find((candidate: { name: string }) => candidate.name === 'reader')
    await cli('keys', 'revoke', '--id', key.id)
    await cli('disconnect', '--workspace', workspace)

    const { entries } = await cli('audit', 'list', '--workspace', workspace) as { entries: Array<{ at: string, actor: { kind: string, id: string | null }, action: string, target: { kind: string, id: string }, ip: string | null }> }
    expect(entries.map(entry => `${entry.action} ${entry.target.kind}`)).toEqual([
      'connection.disconnected connection', 'key.revoked key', 'webhook_endpoint.removed webhook_endpoint', 'webhook_endpoint.added webhook_endpoint',
      'workspace.plan_changed workspace', 'key.created key', 'key.created key', 'connection.connected connection'
    ])
    for (const entry of entries) {
      expect(Object.keys(entry)).toEqual(['at', 'actor', 'action', 'target', 'ip'])
      expect(entry.actor.kind).toBe('cli')
      expect(entry.ip).toBeNull()
    }
    expect(entries[1].target.id).toBe(key.id)
    expect(entries[3].target.id).toBe(endpoint.id)
    expect(JSON.stringify(entries)).not.toContain(endpoint.secret)
    expect(JSON.stringify(entries)).not.toContain(account.accessToken)
    await expect(cli('audit', 'list', '--workspace', 'ws_missing')).rejects.toThrow('workspace "ws_missing" not found')

    // the real executable prints the same; the embedded database is the one process's at a time
    await runtime?.close()
    runtime = undefined
    const printed = await runCli(['audit', 'list', '--workspace', workspace, '--limit', '2'], env)
    expect(printed.code).toBe(0)
    expect(printed.json).toEqual({ entries: entries.slice(0, 2) })
  })
})
