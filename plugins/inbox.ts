import fp from 'fastify-plugin'
import { refreshNumbers } from '../src/connections/refresh.js'
import { createInbox, type Inbox, type OnApplied } from '../src/webhooks/inbox.js'

declare module 'fastify' {
  interface FastifyInstance { inbox: Inbox }
}

/**
 * The webhook inbox (src/webhooks/inbox.ts) on the durable-work runner. `onApplied` runs inside
 * each batch's transaction with what it changed (customer webhooks hook in here).
 */
export default fp(async function inbox (app, options: { onApplied?: OnApplied }) {
  app.decorate('inbox', createInbox({
    work: app.work,
    log: app.log,
    onApplied: options.onApplied,
    shared: app.database.kind === 'postgres',
    refreshNumbers (wabaId) {
      refreshNumbers(app.connectDeps, wabaId).catch(error => app.log.warn({ wabaId, err: (error as Error).message }, 'number refresh failed'))
    }
  }))
}, { name: 'inbox', dependencies: ['work', 'connections'] })
