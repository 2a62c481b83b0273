import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { UsageError } from '../../src/cli/flags.js'
import { parseInvocation } from '../../src/cli/invocation.js'
import { loadConfig } from '../../src/config.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'
import { dumpDatabase, found } from './helpers.js'

const MARKER = `purge-me-${Date.now()}`

/** `outbound workspace retention`, `outbound purge` and `outbound erase` (CONTRACT.md 17), as the CLI runs them, on either backend. */
describe('outbound: retention, purge and erase at the command line', () => {
  let dataDir: string
  let database: TestDatabase | undefined
  let env: Record<string, string>
  let runtime: Runtime | undefined
  let workspace: string

  async function cli (...argv: string[]): Promise<any> {
    const invocation = await parseInvocation(argv)
    if (invocation.kind !== 'run') throw new Error('not a command')
    const config = loadConfig(env)
    runtime ??= await openRuntime(config, 'cli')
    return await invocation.command.run(invocation.args, runtime, config)
  }
  const db = () => runtime!.database.db
  async function record (id: string, to: string, daysAgo: number): Promise<void> {
    await db().execute(sql`insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, created_at)
      values (${id}, ${workspace}, '1065', ${to}, 'text', ${JSON.stringify({ type: 'text', to, text: { body: `${MARKER} ${id}` } })}::jsonb, 'delivered', ${`wamid.${id}`},
        now() - ${daysAgo} * interval '1 day')`)
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'outbound-privacy-cli-'))
    const serverUrl = process.env.TEST_DATABASE_URL
    database = serverUrl ? await createPostgresDatabase(serverUrl) : undefined
    env = { DATA_DIR: dataDir, ...(database && { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }) }
    workspace = (await cli('workspace', 'create', '--name', 'Private', '--plan', 'growth')).id
  }, 120_000)
  afterAll(async () => {
    await runtime?.close()
    await database?.drop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('sets and clears a workspace\'s retention, audited; refuses a number out of range', async () => {
    expect(await cli('workspace', 'retention', '--workspace', workspace, '--days', '30')).toMatchObject({ id: workspace, retention_days: 30 })
    expect(await cli('workspace', 'retention', '--workspace', workspace, '--days', 'none')).toMatchObject({ retention_days: null })
    await expect(parseInvocation(['workspace', 'retention', '--workspace', workspace, '--days', '0'])).rejects.toThrow(UsageError)
    const actions = (await runtime!.stores.auditLog.page(workspace, { limit: 10 })).map(entry => entry.action)
    expect(actions.filter(action => action === 'workspace.retention_changed')).toHaveLength(2)
  })

  it('purges content older than D: a dry run counts and changes nothing; the purge keeps numbers and metadata; a purged record is not counted again', async () => {
    await record('msg_old1', '17770000001', 40)
    await record('msg_old2', '17770000002', 40)
    await record('msg_new1', '17770000003', 1)
    const dry = await cli('purge', '--workspace', workspace, '--older-than', '30d', '--dry-run')
    expect(dry).toEqual({ ok: true, purged: { messages: 2, inbound: 0, media_files: 0, webhook_deliveries: 0, event_deliveries: 0, campaign_recipients: 0 } })
    expect(found(await dumpDatabase({ database: runtime!.database, config: loadConfig(env) } as never), `${MARKER} msg_old1`)).not.toEqual([])
    expect((await cli('purge', '--workspace', workspace, '--older-than', '30d')).purged.messages).toBe(2)
    expect((await cli('purge', '--workspace', workspace, '--older-than', '30d')).purged.messages).toBe(0)
    const dumped = await dumpDatabase({ database: runtime!.database, config: loadConfig(env) } as never)
    expect(found(dumped, `${MARKER} msg_old1`)).toEqual([])
    expect(found(dumped, `${MARKER} msg_new1`)).not.toEqual([])
    const rows = rowsOf<{ id: string, recipient: string, wamid: string, purged: boolean }>(await db().execute(sql`select id, recipient, wamid, content_purged_at is not null as purged from messages order by id`))
    expect(rows).toEqual([
      { id: 'msg_new1', recipient: '17770000003', wamid: 'wamid.msg_new1', purged: false },
      { id: 'msg_old1', recipient: '17770000001', wamid: 'wamid.msg_old1', purged: true },
      { id: 'msg_old2', recipient: '17770000002', wamid: 'wamid.msg_old2', purged: true }
    ])
    await expect(parseInvocation(['purge', '--workspace', workspace, '--older-than', '30 days'])).rejects.toThrow(UsageError)
  })

  it('erases a person and prints the completed erasure', async () => {
    const erasure = await cli('erase', '--workspace', workspace, '--to', '+17770000003')
    expect(erasure).toMatchObject({ id: expect.stringMatching(/^era_/), status: 'completed', completed_at: expect.any(String), counts: { messages: 1 } })
    const dumped = await dumpDatabase({ database: runtime!.database, config: loadConfig(env) } as never)
    expect(found(dumped, '17770000003')).toEqual([])
    expect(found(dumped, 'wamid.msg_new1')).toEqual([])
  })
})
