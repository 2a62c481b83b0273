import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { embeddedStore, seedWorkspace, startServer, withRuntime, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

const GRACE_MS = 1500

/** SIGTERM: stop accepting, let sends in flight finish within the grace, mark what could not finish, exit 0. */
describe('shutdown: SIGTERM while sends are in flight and waiting (the real server, embedded)', () => {
  let emulator: Emulator
  let store: ServerStore

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    emulator.setStatusOptions('global', { statuses: [] })
    store = await embeddedStore()
  })
  afterAll(async () => {
    await emulator?.close()
    await store?.close()
  })

  it('finishes what it can within SHUTDOWN_GRACE_MS; the rest ends failed `interrupted`; nothing is left pending', async () => {
    const { workspaceId, authorization } = await seedWorkspace(store)
    const [quick, hung, ...waiting] = ['15556000001', '15556000002', '15556000003', '15556000004', '15556000005']
    emulator.setFaults({ recipient: quick }, { latencyMs: 500 })
    emulator.setFaults({ recipient: hung }, { hang: true })
    const server = await startServer({
      ...store.env, GRAPH_API_URL: emulator.url, THROUGHPUT_MPS: '2', SHUTDOWN_GRACE_MS: String(GRACE_MS), UPSTREAM_TIMEOUT_MS: '30000', TEMPLATE_SYNC_INTERVAL_MS: '0'
    })
    const answers = new Map<string, Promise<number>>()
    // two slots a second: the first two go half a second apart, the others wait (the hung send keeps its slot)
    for (const to of [quick, hung, ...waiting]) answers.set(to, sendOver(server.url, authorization, { to, body: 'Hello' }).then(answer => answer.status))
    await waitFor(async () => emulator.requests.filter(request => request.path.endsWith('/messages')).length >= 2, { what: 'the first two sends' })
    const exited = new Promise<number | null>(resolve => server.process.once('exit', code => resolve(code)))
    const signalled = Date.now()
    server.process.kill('SIGTERM')
    await new Promise(resolve => setTimeout(resolve, 200))
    expect((await sendOver(server.url, authorization, { to: '15556000009', body: 'Hello' })).status).toBe(0) // no longer accepting
    expect(await exited).toBe(0)
    expect(Date.now() - signalled).toBeLessThan(GRACE_MS + 5000)

    expect(await answers.get(quick)).toBe(200)
    expect(await answers.get(hung)).toBe(502)
    const records = await withRuntime(store, async ({ stores }) => await stores.messages.list(workspaceId, { limit: 100 }))
    const byRecipient = new Map(records.map(record => [record.recipient, record]))
    expect(records.filter(record => record.status === 'pending')).toEqual([])
    expect(byRecipient.get(quick)).toMatchObject({ status: 'sent', attempts: 1 })
    expect(byRecipient.get(hung)).toMatchObject({ status: 'failed', errorCode: 'interrupted', attempts: 1 })
    const cutOff = waiting.filter(to => byRecipient.get(to)?.status === 'failed')
    for (const to of cutOff) {
      const record = byRecipient.get(to)!
      expect(record.errorCode).toBe('interrupted')
      if (record.attempts === 0) {
        // still waiting for its slot: never attempted, so not sent, and nothing went upstream
        expect(await answers.get(to)).toBe(503)
        expect(emulator.sentMessages.some(sent => sent.to === to)).toBe(false)
      } else {
        // on a loaded machine a waiting send can get its slot during the grace and be cut off
        // mid-call: its outcome is unknown (502), and it is not retried
        expect(await answers.get(to)).toBe(502)
        expect(record.attempts).toBe(1)
      }
    }
    expect(cutOff.filter(to => byRecipient.get(to)!.attempts === 0).length).toBeGreaterThan(0)
  })
})
