import fp from 'fastify-plugin'
import { createDispatcher, type Dispatch } from '../src/dispatch/dispatcher.js'
import { InFlight } from '../src/dispatch/in-flight.js'
import { startLease } from '../src/dispatch/lease.js'
import { countedDispatch } from '../src/metrics/instrument.js'
import { dispatcherStore } from '../src/store/dispatchers.js'
import { newId } from '../src/store/ids.js'

declare module 'fastify' {
  interface FastifyInstance {
    dispatch: Dispatch
    /** this process in the `dispatchers` table: the `dispatcherId` of the records it creates */
    dispatcherId: string
  }
}

/**
 * The one way a logged message goes upstream, for the API and the dashboard alike. Holds this
 * process's dispatcher lease; on close, lets the dispatches in flight finish within
 * SHUTDOWN_GRACE_MS and marks what could not finish as interrupted.
 */
export default fp(async function dispatch (app) {
  const { config } = app
  const dispatcherId = newId('dsp')
  const inFlight = new InFlight()
  const lease = await startLease({
    store: dispatcherStore(app.database.db),
    id: dispatcherId,
    leaseMs: config.DISPATCHER_LEASE_MS,
    singleProcess: app.database.kind !== 'postgres',
    log: app.log
  })

  app.decorate('dispatcherId', dispatcherId)
  app.decorate('dispatch', countedDispatch(createDispatcher({
    upstream: app.upstream,
    messages: app.messages,
    cipher: app.cipher,
    log: app.log,
    pacer: app.pacer,
    inFlight,
    dispatcherId,
    limits: { maxAttempts: config.MAX_ATTEMPTS, deadlineMs: config.DISPATCH_DEADLINE_MS, throughputMps: config.THROUGHPUT_MPS }
  }), app.metrics.sends))

  // A keep-alive connection left open would hold the server's close until its idle timeout.
  app.addHook('onSend', async function closeConnectionWhenDraining (_request, reply) {
    if (inFlight.closing) reply.header('connection', 'close')
  })
  app.addHook('preClose', async function drainDispatches () {
    await inFlight.drain(config.SHUTDOWN_GRACE_MS)
  })
  app.addHook('onClose', async function releaseLease () {
    await lease.stop()
  })
}, { name: 'dispatch', dependencies: ['db', 'upstream', 'pacer', 'metrics'] })
