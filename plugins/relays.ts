import fp from 'fastify-plugin'
import { deliveryAgent, deliveryTask, DELIVERY_TIMEOUT_MS, retryPolicy } from '../src/events/deliver.js'
import { relayRequest } from '../src/relay/deliver.js'
import { RELAY_QUEUE } from '../src/store/relays.js'

// A queue, a pool and slots of their own: relays never wait behind customer events, nor they behind relays.
const BATCH = 64
const CONCURRENCY = 256
// a target that hangs holds at most these slots (each up to DELIVERY_TIMEOUT_MS); the others go past its backlog
const PER_TARGET = 96

/**
 * The relay (CONTRACT.md 18): deliveries are created by the inbox in the transaction that applies
 * Meta's delivery (src/relay/intake.ts); each is a leased job of the durable-work runner, grouped by
 * target, retried on WEBHOOK_RETRY_SCHEDULE_MS as customer events are.
 */
export default fp(async function relays (app) {
  const agent = deliveryAgent(app.config.WEBHOOKS_ALLOW_PRIVATE)
  const { maxAttempts, backoffMs } = retryPolicy(app.config)
  app.work.defineLeased(RELAY_QUEUE, {
    batch: BATCH,
    concurrency: CONCURRENCY,
    perGroup: PER_TARGET,
    leaseMs: DELIVERY_TIMEOUT_MS + 2000,
    maxAttempts,
    backoffMs,
    pollMs: 200
  }, deliveryTask({
    deliveries: app.relays,
    request: relayRequest(app.cipher, app.config.APP_SECRET),
    agent,
    allowPrivate: app.config.WEBHOOKS_ALLOW_PRIVATE,
    maxAttempts,
    backoffMs
  }))
  const stopListening = app.outbox.onCommitted(() => app.work.wake(RELAY_QUEUE))
  app.addHook('onClose', async function closeRelays () {
    stopListening()
    await agent.close()
  })
}, { name: 'relays', dependencies: ['db', 'work'] })
