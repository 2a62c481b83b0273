import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { postgresStore, seedWorkspace, startServer, withRuntime, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { RESPOND_ASYNC } from './helpers.js'

const TOTAL = 200
const url = process.env.TEST_DATABASE_URL

/**
 * Several processes on PostgreSQL share the queue: a number's queue is drained by one at a time, and
 * another takes it over when it stops. Each record is sent once (CONTRACT.md 9).
 */
describe.skipIf(!url)('queued sends: two processes on PostgreSQL share one queue', () => {
  let emulator: Emulator
  let store: ServerStore

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    emulator.setStatusOptions('global', { statuses: [] })
    store = await postgresStore(url!)
  })
  afterAll(async () => {
    await emulator?.close()
    await store?.close()
  })

  it('the second process takes over the drain when the first stops; every record sent once, none interrupted', async () => {
    const { workspaceId, authorization } = await seedWorkspace(store)
    const env = { ...store.env, GRAPH_API_URL: emulator.url, THROUGHPUT_MPS: '10', RATE_LIMIT_MAX: '100000', DISPATCHER_LEASE_MS: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
    const to = (index: number) => `1555500${String(index).padStart(4, '0')}`
    const first = await startServer(env)
    let second: Awaited<ReturnType<typeof startServer>> | undefined
    try {
      const early = await Promise.all(Array.from({ length: 150 }, async (_, index) => (await sendOver(first.url, authorization, { to: to(index), body: 'Hello' }, RESPOND_ASYNC)).status))
      // the first process takes the number's drain; the second starts beside it and waits for its turn
      second = await startServer(env)
      const late = await Promise.all(Array.from({ length: TOTAL - 150 }, async (_, index) => (await sendOver(second!.url, authorization, { to: to(150 + index), body: 'Hello' }, RESPOND_ASYNC)).status))
      expect([...early, ...late].every(status => status === 202)).toBe(true)
      expect(emulator.sentMessages.length).toBeLessThan(TOTAL - 50)
      // SIGTERM: what waits for a slot goes back to the queue, and the drain lease is given up
      await first.stop()
      await waitFor(async () => emulator.sentMessages.length >= TOTAL, { timeoutMs: 40_000, intervalMs: 250, what: 'every record sent' })
    } finally {
      await first.stop()
      await second?.stop()
    }
    const records = await withRuntime(store, async ({ stores }) => await stores.messages.list(workspaceId, { limit: 1000 }))
    expect(records.filter(record => record.status !== 'sent').map(record => `${record.status} ${record.errorCode}`)).toEqual([])
    const recipients = emulator.sentMessages.map(sent => sent.to)
    expect(recipients).toHaveLength(TOTAL)
    expect(new Set(recipients).size).toBe(TOTAL)
    expect((await dispatcherIdsOf(store, workspaceId)).length).toBeGreaterThanOrEqual(2)
  })
})

async function query<T> (store: ServerStore, run: (sql: import('postgres').Sql) => Promise<T>): Promise<T> {
  const { default: postgres } = await import('postgres')
  const sql = postgres(store.env.DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    return await run(sql)
  } finally {
    await sql.end()
  }
}

async function dispatcherIdsOf (store: ServerStore, workspaceId: string): Promise<string[]> {
  return await query(store, async sql => (await sql`select distinct dispatcher_id from messages where workspace_id = ${workspaceId} and dispatcher_id is not null`).map(row => row.dispatcher_id as string))
}
