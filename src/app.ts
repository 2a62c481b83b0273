import Fastify, { type FastifyInstance } from 'fastify'
import connectionsPlugin from '../plugins/connections.js'
import dbPlugin from '../plugins/db.js'
import upstreamPlugin from '../plugins/upstream.js'
import healthRoutes from '../routes/health.js'
import webhookRoutes from '../routes/webhooks.js'
import type { Config } from './config.js'
import { handleError } from './error-handler.js'
import { methodNotAllowed, notFound } from './errors.js'
import { loggerOptions } from './logger.js'
import { trackRouteMethods } from './route-methods.js'

export interface AppOptions {
  config: Config
  /** false silences logging (tests); default: pino at config.LOG_LEVEL */
  logger?: boolean
}

/** The composition root: every plugin and route the gateway has, in order. Never listens. */
export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config),
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: true,
    ajv: { customOptions: { coerceTypes: false, allErrors: false } }
  })
  const allowedMethods = trackRouteMethods(app)

  app.setErrorHandler(handleError)
  app.setNotFoundHandler(async function unmatched (request) {
    const allow = allowedMethods(request.url.split('?')[0])
    throw allow.length > 0 ? methodNotAllowed(allow) : notFound(`No route for ${request.method} ${request.url.split('?')[0]}`)
  })

  await app.register(dbPlugin, { config })
  await app.register(upstreamPlugin)
  await app.register(connectionsPlugin)

  await app.register(healthRoutes)
  await app.register(webhookRoutes)
  return app
}
