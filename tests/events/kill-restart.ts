import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addEndpoint } from '../../src/events/endpoints.js'
import { loadConfig } from '../../src/config.js'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { seedWorkspace, startServer, withRuntime, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { startReceiver, type Receiver } from './receiver.js'

/**
 * kill -9 with deliveries pending and in flight: after a restart every event is delivered, none lost.
 * The receiver holds the first requests unanswered, so the killed process dies mid-attempt.
 */
export function describeDeliveryKillRestart (backend: string, open: () => Promise<ServerStore>, skip = false): void {
  describe(`outgoing webhooks survive kill -9 (${backend})`, () => {
    let emulator: Emulator
    let store: ServerStore
    let receiver: Receiver

    beforeAll(async () => {
      if (skip) return
      emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
      emulator.setStatusOptions('global', { statuses: [] })
      receiver = await startReceiver({ plan: ['hang', 'hang', 'hang', 'hang'] })
      store = await open()
    })
    afterAll(async () => {
      await emulator?.close()
      await receiver?.close()
      await store?.close()
    })

    it.skipIf(skip)('delivers every event after the restart, attempts in flight included', async () => {
      const { workspaceId, authorization } = await seedWorkspace(store)
      const env = { ...store.env, GRAPH_API_URL: emulator.url, RATE_LIMIT_MAX: '100000', TEMPLATE_SYNC_INTERVAL_MS: '0', WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '200,200' }
      await withRuntime(store, async ({ stores, cipher }) => {
        await addEndpoint({ webhooks: stores.webhooks, cipher, config: loadConfig({ ...env, LOG_LEVEL: 'silent' }) }, { workspaceId, url: receiver.url, events: ['message.sent'] })
      })
      const first = await startServer(env)
      const statuses = await Promise.all(Array.from({ length: 30 }, async (_, index) => (await sendOver(first.url, authorization, { to: `1555400${String(index).padStart(4, '0')}`, body: 'Hello' })).status))
      expect(statuses.every(status => status === 200)).toBe(true)
      await waitFor(async () => receiver.received.length >= 4, { what: 'attempts in flight' })
      await first.kill()

      // the leases of the attempts in flight run out (12 s), then the restarted server sends them again
      const second = await startServer(env)
      try {
        await waitFor(async () => new Set(receiver.events().map(event => event.data.id)).size === 30 && receiver.received.length >= 30 + 4,
          { timeoutMs: 40_000, what: 'every event delivered' })
        if (store.kind === 'postgres') await waitFor(async () => await pendingDeliveries(store, workspaceId) === 0, { timeoutMs: 20_000, what: 'no pending delivery' })
      } finally {
        await second.stop()
      }
      // Embedded: the database can be read only with the server stopped. An attempt the killed
      // process made and never recorded is made again once its lease runs out (12 s): a delivery
      // can still be pending here, and one more run of the server delivers it.
      for (let round = 0; store.kind !== 'postgres' && round < 2 && await pendingDeliveries(store, workspaceId) > 0; round++) {
        const again = await startServer(env)
        await new Promise(resolve => setTimeout(resolve, 15_000))
        await again.stop()
      }
      const deliveries = await withRuntime(store, async ({ stores }) => await stores.webhooks.deliveries(workspaceId, { limit: 100 }))
      expect(deliveries).toHaveLength(30)
      expect(deliveries.every(delivery => delivery.status === 'delivered')).toBe(true)
      const sent = await withRuntime(store, async ({ stores }) => await stores.messages.list(workspaceId, { limit: 100 }))
      expect(new Set(receiver.events().map(event => event.data.id))).toEqual(new Set(sent.map(record => record.id)))
    }, 150_000)
  })
}

/** On the embedded database only while no server holds it. */
async function pendingDeliveries (store: ServerStore, workspaceId: string): Promise<number> {
  return await withRuntime(store, async ({ stores }) => (await stores.webhooks.deliveries(workspaceId, { status: 'pending', limit: 100 })).length)
}
