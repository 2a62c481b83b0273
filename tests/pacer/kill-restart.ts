import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { seedWorkspace, startServer, withRuntime, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

/**
 * A crash never leaves a record that claims less or more than happened: the real server is killed
 * (SIGKILL) in the middle of a burst; once a server runs again, no record is still pending.
 */
export function describeKillAndRestart (backend: string, open: () => Promise<ServerStore>, skip = false): void {
  describe(`durability: kill -9 in the middle of a burst, then a restart (${backend})`, () => {
    let emulator: Emulator
    let store: ServerStore

    beforeAll(async () => {
      if (skip) return
      emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
      emulator.setStatusOptions('global', { statuses: [] })
      emulator.setFaults('global', { latencyMs: 400 })
      store = await open()
    })
    afterAll(async () => {
      await emulator?.close()
      await store?.close()
    })

    it.skipIf(skip)('no record is left pending: what was mid-dispatch is failed `interrupted`, what was answered stays sent', async () => {
      const { workspaceId, authorization } = await seedWorkspace(store)
      const env = { ...store.env, GRAPH_API_URL: emulator.url, THROUGHPUT_MPS: '20', RATE_LIMIT_MAX: '100000', DISPATCHER_LEASE_MS: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
      const first = await startServer(env)
      const answers = Array.from({ length: 60 }, async (_, index) => (await sendOver(first.url, authorization, { to: `1555300${String(index).padStart(4, '0')}`, body: 'Hello' })).status)
      await waitFor(async () => emulator.sentMessages.length >= 10, { timeoutMs: 20_000, what: 'sends under way' })
      await first.kill()
      expect((await Promise.all(answers)).filter(status => status === 0).length).toBeGreaterThan(0)

      // Embedded: at start-up, before the server listens. PostgreSQL: once the dead process's lease (1 s) has run out.
      const second = await startServer(env)
      try {
        if (store.kind === 'postgres') await waitFor(async () => (await pendingCount(store)) === 0, { timeoutMs: 10_000, what: 'no pending record' })
      } finally {
        await second.stop()
      }
      const records = await withRuntime(store, async ({ stores }) => await stores.messages.list(workspaceId, { limit: 1000 }))
      expect(records.filter(record => record.status === 'pending')).toEqual([])
      const interrupted = records.filter(record => record.errorCode === 'interrupted')
      expect(interrupted.length).toBeGreaterThan(0)
      expect(interrupted.every(record => record.status === 'failed' && /interrupted/i.test(record.errorText ?? ''))).toBe(true)
      // a message the gateway recorded as sent was accepted upstream
      const accepted = new Set(emulator.sentMessages.map(sent => sent.wamid))
      expect(records.filter(record => record.status === 'sent').every(record => accepted.has(record.wamid!))).toBe(true)
    })
  })
}

async function pendingCount (store: ServerStore): Promise<number> {
  const { default: postgres } = await import('postgres')
  const sql = postgres(store.env.DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    const [{ count }] = await sql`select count(*)::int as count from messages where status = 'pending'`
    return count
  } finally {
    await sql.end()
  }
}
