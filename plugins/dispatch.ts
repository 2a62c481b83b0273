import fp from 'fastify-plugin'
import { AUDIENCE_CODES, applyRefusals } from '../src/audience/effects.js'
import { shutdownGraceMs } from '../src/config.js'
import { createDispatcher, type Dispatch } from '../src/dispatch/dispatcher.js'
import { InFlight } from '../src/dispatch/in-flight.js'
import { startLease } from '../src/dispatch/lease.js'
import { createOutcomeWriter } from '../src/dispatch/outcomes.js'
import { startSweeper } from '../src/dispatch/sweeper.js'
import { createWithdrawals, type Withdrawals } from '../src/dispatch/withdrawals.js'
import { countedDispatch } from '../src/metrics/instrument.js'
import { dispatcherStore } from '../src/store/dispatchers.js'
import { newId } from '../src/store/ids.js'

declare module 'fastify' {
  interface FastifyInstance {
    dispatch: Dispatch
    /** this process in the `dispatchers` table: the `dispatcherId` of the records it creates */
    dispatcherId: string
    /** a send's record write whose outcome is unknown is withdrawn (src/dispatch/withdrawals.ts): the send service creates records through it */
    withdrawals: Withdrawals
  }
}

/**
 * The one way a logged message goes upstream, for the API and the dashboard alike. Holds this
 * process's dispatcher lease and sweeps its records in flight (sweeper.ts); on close, lets the
 * dispatches in flight finish within the grace (config.ts shutdownGraceMs), waits for their
 * outcomes to be written, and marks what could not finish as interrupted.
 */
export default fp(async function dispatch (app) {
  const { config } = app
  const dispatcherId = newId('dsp')
  const inFlight = new InFlight()
  const inHand = new Set<string>()
  const outcomes = createOutcomeWriter(app.log)
  const withdrawals = createWithdrawals({ withdraw: async id => { await app.messages.withdraw(id) }, log: app.log })
  const store = dispatcherStore(app.database.db, app.outbox)
  const lease = await startLease({ store, id: dispatcherId, leaseMs: config.DISPATCHER_LEASE_MS, singleProcess: app.database.kind !== 'postgres', log: app.log })
  const sweeper = startSweeper({
    store,
    dispatcherId,
    boundMs: config.UPSTREAM_TIMEOUT_MS + config.DISPATCH_DEADLINE_MS,
    busy: () => [...inHand, ...outcomes.pending(), ...withdrawals.pending()],
    log: app.log
  })

  app.decorate('dispatcherId', dispatcherId)
  app.decorate('withdrawals', withdrawals)
  app.decorate('dispatch', countedDispatch(createDispatcher({
    upstream: app.upstream,
    messages: app.messages,
    cipher: app.cipher,
    log: app.log,
    pacer: app.pacer,
    inFlight,
    outcomes,
    inHand,
    dispatcherId,
    limits: { maxAttempts: config.MAX_ATTEMPTS, deadlineMs: config.DISPATCH_DEADLINE_MS, throughputMps: config.THROUGHPUT_MPS },
    // 131050 suppresses the recipient, 131049 cools them down, 132015/132016 mark the template (CONTRACT.md 14)
    async afterFailure (record, errorCode) {
      if (AUDIENCE_CODES.has(errorCode)) await applyRefusals(app.database.db, [{ workspaceId: record.workspaceId, recipient: record.recipient, errorCode, payload: record.payload }])
    }
  }), app.metrics.sends))

  // A keep-alive connection left open would hold the server's close until its idle timeout.
  app.addHook('onSend', async function closeConnectionWhenDraining (_request, reply) {
    if (inFlight.closing) reply.header('connection', 'close')
  })
  app.addHook('preClose', async function drainDispatches () {
    const graceMs = shutdownGraceMs(config)
    const started = Date.now()
    await inFlight.drain(graceMs)
    // the outcomes of the sends that finished are written before the lease is let go
    await outcomes.settle(Math.max(1000, graceMs - (Date.now() - started)))
    await withdrawals.settle(Math.max(1000, graceMs - (Date.now() - started)))
  })
  app.addHook('onClose', async function releaseLease () {
    sweeper.stop()
    await lease.stop()
  })
}, { name: 'dispatch', dependencies: ['db', 'upstream', 'pacer', 'metrics'] })
