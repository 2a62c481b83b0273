import fp from 'fastify-plugin'
import { deliveryAgent, deliveryTask, DELIVERY_TIMEOUT_MS, eventRequest, retryPolicy } from '../src/events/deliver.js'
import { DELIVERY_QUEUE, ENDPOINT_IN_FLIGHT, OUTBOX_BATCH, OUTBOX_CONCURRENCY } from '../src/events/outbox.js'

/**
 * Events to the customer (CONTRACT.md 10): deliveries are jobs of the durable-work runner, leased
 * so that each attempt is made by one process, retried on WEBHOOK_RETRY_SCHEDULE_MS. Events are
 * emitted by the stores, in the transaction of the change they report (src/events/outbox.ts).
 */
export default fp(async function events (app) {
  const agent = deliveryAgent(app.config.WEBHOOKS_ALLOW_PRIVATE)
  const { maxAttempts, backoffMs } = retryPolicy(app.config)
  app.work.defineLeased(DELIVERY_QUEUE, {
    // claims of 128 make fewer, fuller statements (the attempts of a claim settle together), and
    // 512 in flight keep a claim's database steps overlapping with the previous claims' requests
    // (bench/RESULTS.md, round 6: 3,200–3,400 → 4,000–4,200 events/s with 256)
    batch: OUTBOX_BATCH,
    concurrency: OUTBOX_CONCURRENCY,
    // jobs are grouped by endpoint: one that hangs leaves the other endpoints 128 slots
    perGroup: ENDPOINT_IN_FLIGHT,
    // longer than an attempt may take, so a live holder never loses its job to another process
    leaseMs: DELIVERY_TIMEOUT_MS + 2000,
    maxAttempts,
    backoffMs,
    pollMs: 200
  }, deliveryTask({
    deliveries: app.webhooks,
    request: eventRequest(app.cipher),
    agent,
    allowPrivate: app.config.WEBHOOKS_ALLOW_PRIVATE,
    maxAttempts,
    backoffMs,
    observe: outcome => app.metrics.deliveries.inc({ outcome })
  }))
  const stopListening = app.outbox.onCommitted(() => app.work.wake(DELIVERY_QUEUE))
  app.addHook('onClose', async function closeDeliveries () {
    stopListening()
    await agent.close()
  })
}, { name: 'events', dependencies: ['db', 'work', 'metrics'] })
