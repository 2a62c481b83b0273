import fp from 'fastify-plugin'
import { shutdownGraceMs } from '../src/config.js'
import { newId } from '../src/store/ids.js'
import { createWorkRunner, type WorkRunner } from '../src/work/runner.js'

declare module 'fastify' {
  interface FastifyInstance { work: WorkRunner }
}

/**
 * The durable-work runner (src/work/runner.ts). Tasks are defined by the plugins that own them
 * (the webhook inbox, queued sends, customer events); claiming starts once the app is ready and
 * stops before the database closes.
 */
export default fp(async function work (app) {
  const runner = createWorkRunner({ db: app.database.db, worker: newId('wrk'), log: app.log })
  app.decorate('work', runner)
  app.addHook('onReady', async function startWork () { runner.start() })
  app.addHook('onClose', async function stopWork () { await runner.stop(shutdownGraceMs(app.config)) })
}, { name: 'work', dependencies: ['db'] })
