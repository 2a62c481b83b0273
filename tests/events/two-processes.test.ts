import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { addEndpoint } from '../../src/events/endpoints.js'
import { emitEvents } from '../../src/events/outbox.js'
import { postgresStore, startServer, withRuntime, type RunningServer, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { startReceiver, type Receiver } from './receiver.js'

const url = process.env.TEST_DATABASE_URL
const EVENTS = 200

describe.skipIf(!url)('outgoing webhooks with two processes on PostgreSQL: each attempt made once', () => {
  let store: ServerStore
  let receiver: Receiver
  const servers: RunningServer[] = []

  beforeAll(async () => {
    store = await postgresStore(url!)
    // every event fails its first attempt and succeeds at its second: exactly two requests per webhook-id
    receiver = await startReceiver({ decide: (_request, seenBefore) => seenBefore === 0 ? 503 : 200 })
  })
  afterAll(async () => {
    for (const server of servers) await server.stop()
    await receiver?.close()
    await store?.close()
  })

  it('shares the outbox without sending an attempt twice', async () => {
    const env = { ...store.env, TEMPLATE_SYNC_INTERVAL_MS: '0', WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100' }
    const workspaceId = await withRuntime(store, async ({ stores, cipher }) => {
      const workspace = await stores.workspaces.create('two processes', 'growth')
      await addEndpoint({ webhooks: stores.webhooks, cipher, config: loadConfig({ ...env, LOG_LEVEL: 'silent' }) }, { workspaceId: workspace.id, url: receiver.url })
      return workspace.id
    })
    servers.push(await startServer(env), await startServer(env))
    await withRuntime(store, async ({ database }) => {
      await database.db.transaction(async tx => await emitEvents(tx, Array.from({ length: EVENTS }, (_, index) => ({ workspaceId, type: 'message.sent' as const, data: { index } }))))
    })
    await waitFor(async () => receiver.received.length >= 2 * EVENTS, { timeoutMs: 60_000, what: 'every event delivered' })
    await waitFor(async () => await withRuntime(store, async ({ stores }) => (await stores.webhooks.deliveries(workspaceId, { status: 'delivered', limit: 1000 })).length === EVENTS),
      { timeoutMs: 10_000, what: 'every delivery recorded' })
    const perId = new Map<string, number>()
    for (const request of receiver.received) perId.set(String(request.headers['webhook-id']), (perId.get(String(request.headers['webhook-id'])) ?? 0) + 1)
    expect(perId.size).toBe(EVENTS)
    expect([...perId.values()].filter(count => count !== 2)).toEqual([])
    const deliveries = await withRuntime(store, async ({ stores }) => await stores.webhooks.deliveries(workspaceId, { limit: 1000 }))
    expect(deliveries.every(delivery => delivery.attempts === 2 && delivery.status === 'delivered')).toBe(true)
  }, 120_000)
})
