import fp from 'fastify-plugin'
import { syncAllTemplates } from '../src/connections/refresh.js'

/** Keeps synced templates fresh between webhooks: every TEMPLATE_SYNC_INTERVAL_MS (0 turns it off). */
export default fp(async function templateSync (app) {
  const interval = app.config.TEMPLATE_SYNC_INTERVAL_MS
  if (interval === 0) return
  const timer = setInterval(() => {
    syncAllTemplates(app.connectDeps, (wabaId, error) => app.log.warn({ wabaId, err: error }, 'template sync failed'))
      .catch(error => app.log.error({ err: error }, 'template sync failed'))
  }, interval)
  timer.unref()
  app.addHook('onClose', async () => clearInterval(timer))
}, { name: 'template-sync', dependencies: ['connections'] })
