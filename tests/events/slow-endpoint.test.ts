import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { emitEvents, ENDPOINT_IN_FLIGHT, OUTBOX_CONCURRENCY } from '../../src/events/outbox.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { subscribe } from './helpers.js'
import { startReceiver, type Receiver } from './receiver.js'

// A customer endpoint that never answers holds each attempt until DELIVERY_TIMEOUT_MS (10 s). With
// a backlog of its events ahead of everyone else's, it must not take every attempt slot of the process.
describe('outgoing webhooks: an endpoint that hangs does not hold up the others', () => {
  let workspaceId: string
  let hanging: Receiver
  let healthy: Receiver

  const ctx = useGateway({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true' },
    plan: null,
    setup: async gateway => {
      workspaceId = (await gateway.app.workspaces.create('slow endpoint', 'growth')).id
      hanging = await startReceiver({ otherwise: 'hang' })
      healthy = await startReceiver()
    }
  })
  // registered after useGateway, so that it runs before the gateway closes:
  // the hanging attempts end at once when their connections drop
  afterAll(async () => {
    await hanging?.close()
    await healthy?.close()
  })

  const testEvents = (endpointId: string, count: number) => Array.from({ length: count }, (_, index) => ({
    workspaceId, endpointId, type: 'webhook.test' as const, data: { index }
  }))

  // more than a process has attempt slots, so that without a cap they would take every one
  const BACKLOG = OUTBOX_CONCURRENCY + 100

  it('delivers to a healthy endpoint at once while a backlog of earlier events waits on one that hangs', async () => {
    const slow = await subscribe(ctx.gateway.app, workspaceId, hanging.url)
    const fast = await subscribe(ctx.gateway.app, workspaceId, healthy.url)
    // the hanging endpoint's events first: their jobs come first in claim order
    await ctx.gateway.app.database.db.transaction(async tx => await emitEvents(tx, testEvents(slow.id, BACKLOG)))
    await ctx.gateway.app.database.db.transaction(async tx => await emitEvents(tx, testEvents(fast.id, 5)))
    const emittedAt = Date.now()
    ctx.gateway.app.outbox.committed()

    await waitFor(async () => healthy.received.length === 5, { what: 'the healthy endpoint\'s 5 events', timeoutMs: 8000 })
    // well before the hanging attempts time out (10 s)
    expect(Date.now() - emittedAt).toBeLessThan(5000)
    expect(hanging.received.length).toBeGreaterThan(0)
    const [{ running }] = rowsOf<{ running: number }>(await ctx.gateway.app.database.db.execute(sql`
      select count(*)::int as running from jobs where group_key = ${slow.id} and status = 'running'`))
    expect(running).toBeGreaterThan(0)
    expect(running).toBeLessThanOrEqual(ENDPOINT_IN_FLIGHT)
  })
})
