import fp from 'fastify-plugin'
import { shutdownGraceMs } from '../src/config.js'
import { refreshNumbers } from '../src/connections/refresh.js'
import { faultCode } from '../src/faults/classify.js'
import { createInbox, type Inbox, type OnApplied } from '../src/webhooks/inbox.js'

const DRAIN_MS = 5000

declare module 'fastify' {
  interface FastifyInstance { inbox: Inbox }
}

/**
 * The webhook inbox (src/webhooks/inbox.ts) on the durable-work runner. `onApplied` runs inside
 * each batch's transaction with what it changed (customer webhooks hook in here).
 */
export default fp(async function inbox (app, options: { onApplied?: OnApplied }) {
  const inbox = createInbox({
    work: app.work,
    log: app.log,
    onApplied: options.onApplied,
    // the customer events and relay deliveries the batch created go out without waiting for a poll
    committed: () => { app.outbox.committed() },
    shared: app.database.kind === 'postgres',
    refreshNumbers (wabaId) {
      refreshNumbers(app.connectDeps, wabaId, async reads => await app.qualityGuard.numbersRead(reads)).catch(error => app.log.warn({ wabaId, err: error }, 'number refresh failed'))
    }
  })
  app.decorate('inbox', inbox)
  // Stored deliveries would be applied after the restart anyway; applying them now makes a stop invisible.
  app.addHook('preClose', async function drainInbox () {
    await inbox.drain(Math.min(shutdownGraceMs(app.config), DRAIN_MS)).catch(error => app.log.warn({ code: faultCode(error) }, 'could not drain the webhook inbox'))
  })
}, { name: 'inbox', dependencies: ['work', 'connections', 'quality-guard'] })
