import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { embeddedStore, postgresStore, seedWorkspace, startServer, withRuntime, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { RESPOND_ASYNC } from './helpers.js'

const TOTAL = 200
const url = process.env.TEST_DATABASE_URL

/**
 * A queued send survives a crash without being sent twice (CONTRACT.md 9): the server is killed
 * (SIGKILL) in the middle of a drain; once a server runs again every record ends sent or failed,
 * and the upstream saw each recipient at most once. On this run's backend.
 */
describe(`queued sends: kill -9 in the middle of a drain, then a restart (${url ? 'PostgreSQL' : 'embedded'})`, () => {
  let emulator: Emulator
  let store: ServerStore

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    emulator.setStatusOptions('global', { statuses: [] })
    emulator.setFaults('global', { latencyMs: 300 })
    store = url ? await postgresStore(url) : await embeddedStore()
  })
  afterAll(async () => {
    await emulator?.close()
    await store?.close()
  })

  it('every record ends sent or failed (`interrupted` for what was under way); no recipient is sent to twice', async () => {
    const { workspaceId, authorization } = await seedWorkspace(store)
    const env = { ...store.env, GRAPH_API_URL: emulator.url, THROUGHPUT_MPS: '20', RATE_LIMIT_MAX: '100000', DISPATCHER_LEASE_MS: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
    const first = await startServer(env)
    const answers = await Promise.all(Array.from({ length: TOTAL }, async (_, index) => (await sendOver(first.url, authorization, { to: `1555400${String(index).padStart(4, '0')}`, body: 'Hello' }, RESPOND_ASYNC)).status))
    expect(answers.every(status => status === 202)).toBe(true)
    await waitFor(async () => emulator.sentMessages.length >= 40, { timeoutMs: 20_000, what: 'the drain under way' })
    await first.kill()
    const beforeRestart = emulator.sentMessages.length
    expect(beforeRestart).toBeLessThan(TOTAL)

    const second = await startServer(env)
    try {
      // Every record left queued is sent by the new process; the embedded database can only be read once it stops.
      let seen = -1
      await waitFor(async () => {
        const now = emulator.sentMessages.length
        const stable = now === seen && now > beforeRestart
        seen = now
        return stable
      }, { timeoutMs: 40_000, intervalMs: 1500, what: 'the drain to finish' })
    } finally {
      await second.stop()
    }
    const records = await withRuntime(store, async ({ stores }) => await stores.messages.list(workspaceId, { limit: 1000 }))
    expect(records).toHaveLength(TOTAL)
    expect(records.filter(record => !['sent', 'failed'].includes(record.status)).map(record => record.status)).toEqual([])
    expect(records.filter(record => record.status === 'failed').every(record => record.errorCode === 'interrupted')).toBe(true)
    const recipients = emulator.sentMessages.map(sent => sent.to)
    expect(recipients.length).toBe(new Set(recipients).size)
    const accepted = new Set(emulator.sentMessages.map(sent => sent.wamid))
    expect(records.filter(record => record.status === 'sent').every(record => accepted.has(record.wamid!))).toBe(true)
    // what never left the queue before the crash was sent after it
    expect(records.filter(record => record.status === 'sent').length).toBeGreaterThan(beforeRestart)
  })
})
