import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { seedWorkspace, startServer, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

const SLOW = '15550000008' // the emulator accepts it after 2 s

/**
 * The key is taken in the transaction that creates the record, so a key whose first request died
 * with its process answers from that record and never sends again: the real server is killed
 * (SIGKILL) while the upstream holds its request, which the upstream then accepts: the message went
 * out, and the gateway never answered its client.
 */
export function describeCrashWithKey (backend: string, open: () => Promise<ServerStore>, { skip = false, severalProcesses = false } = {}): void {
  describe(`Idempotency-Key across a kill -9 (${backend})`, () => {
    let emulator: Emulator
    let store: ServerStore

    beforeAll(async () => {
      if (skip) return
      emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
      emulator.setStatusOptions('global', { statuses: [] })
      store = await open()
    })
    afterAll(async () => {
      await emulator?.close()
      await store?.close()
    })

    const upstreamRequests = (to: string) => emulator.requests.filter(sent => sent.method === 'POST' && (sent.body as { to?: string })?.to === to).length

    it.skipIf(skip)('the same key after the restart sends nothing and answers from the record, the same answer every time', async () => {
      const { authorization } = await seedWorkspace(store)
      const env = { ...store.env, GRAPH_API_URL: emulator.url, DISPATCHER_LEASE_MS: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
      const body = { to: SLOW, body: 'exactly once' }
      const first = await startServer(env)
      const dying = postKeyed(first.url, authorization, body, 'crash-key')
      await waitFor(async () => upstreamRequests(SLOW) === 1, { timeoutMs: 10_000, what: 'the request upstream' })
      await first.kill()
      expect((await dying).status).toBe(0)
      await waitFor(async () => emulator.sentMessages.some(sent => sent.to === SLOW), { timeoutMs: 10_000, what: 'the upstream accepting' })

      const second = await startServer(env)
      try {
        // PostgreSQL: 409 until the dead process's lease (1 s) has run out and its record is interrupted
        const answer = await waitFor(async () => {
          const repeat = await postKeyed(second.url, authorization, body, 'crash-key')
          return repeat.status !== 409 && repeat
        }, { timeoutMs: 15_000, what: 'an answer other than 409' })
        expect(answer.replayed).toBe('true')
        const parsed = JSON.parse(answer.body)
        if (answer.status === 200) expect(parsed.wamid).toBe(emulator.sentMessages.find(sent => sent.to === SLOW)!.wamid)
        else expect([answer.status, parsed.code]).toEqual([502, 'interrupted'])
        const again = await postKeyed(second.url, authorization, body, 'crash-key')
        expect([again.status, again.body]).toEqual([answer.status, answer.body])
        expect(upstreamRequests(SLOW)).toBe(1)
      } finally {
        await second.stop()
      }
    })

    it.skipIf(skip || !severalProcesses)('two processes racing on one key send one message', async () => {
      const { authorization } = await seedWorkspace(store)
      const env = { ...store.env, GRAPH_API_URL: emulator.url, RATE_LIMIT_MAX: '100000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
      const to = '15557770001'
      emulator.setFaults({ recipient: to }, { latencyMs: 300 })
      const servers = await Promise.all([startServer(env), startServer(env)])
      try {
        const answers = await Promise.all(Array.from({ length: 20 }, async (_, index) =>
          await postKeyed(servers[index % 2].url, authorization, { to, body: 'raced' }, 'race-key')))
        const ok = answers.filter(answer => answer.status === 200)
        expect(answers.every(answer => answer.status === 200 || answer.status === 409)).toBe(true)
        expect(new Set(ok.map(answer => answer.body)).size).toBeLessThanOrEqual(1)
        const replays = await Promise.all(servers.map(async server => await postKeyed(server.url, authorization, { to, body: 'raced' }, 'race-key')))
        expect(new Set(replays.map(answer => `${answer.status} ${answer.body}`)).size).toBe(1)
        expect(replays[0].status).toBe(200)
        expect(upstreamRequests(to)).toBe(1)
      } finally {
        await Promise.all(servers.map(async server => await server.stop()))
      }
    })
  })
}

/** POST /api/messages.php with an Idempotency-Key on a connection of its own; status 0 when the connection broke. */
async function postKeyed (url: string, authorization: string, body: Record<string, unknown>, key: string): Promise<{ status: number, body: string, replayed: string | undefined }> {
  const answer = await sendOver(url, authorization, body, { 'idempotency-key': key })
  return { status: answer.status, body: answer.body, replayed: answer.headers['idempotent-replayed'] as string | undefined }
}
