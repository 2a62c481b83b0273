import type { FastifyPluginAsync } from 'fastify'
import { dashboardErrorHandler } from '../../src/dashboard/error-page.js'
import { securityHeaders } from '../../src/dashboard/security-headers.js'
import assets from './assets.js'
import audience from './audience.js'
import audit from './audit.js'
import campaigns from './campaigns.js'
import compose from './compose.js'
import connection from './connection.js'
import conversations from './conversations.js'
import inbound from './inbound.js'
import keys from './keys.js'
import messages from './messages.js'
import overview from './overview.js'
import privacy from './privacy.js'
import queue from './queue.js'
import relays from './relays.js'
import signIn from './sign-in.js'
import templates from './templates.js'
import webhooks from './webhooks.js'

/** The dashboard's pages, under /dashboard: each route says by `config.dashboard` whether it needs a session. */
const dashboard: FastifyPluginAsync = async function (app) {
  app.setErrorHandler(dashboardErrorHandler)
  app.addHook('onSend', securityHeaders)
  await app.register(assets)
  await app.register(signIn)
  await app.register(overview)
  await app.register(connection)
  await app.register(compose)
  await app.register(messages)
  await app.register(inbound)
  await app.register(conversations)
  await app.register(templates)
  await app.register(keys)
  await app.register(webhooks)
  await app.register(relays)
  await app.register(queue)
  await app.register(audit)
  await app.register(privacy)
  await app.register(audience)
  await app.register(campaigns)
}

export default dashboard
