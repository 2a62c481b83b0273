import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import audiencePlugin from '../plugins/audience.js'
import authPlugin from '../plugins/auth.js'
import bodyParsersPlugin from '../plugins/body-parsers.js'
import connectionsPlugin from '../plugins/connections.js'
import conversationsPlugin from '../plugins/conversations.js'
import csrfPlugin from '../plugins/csrf.js'
import dbPlugin from '../plugins/db.js'
import dispatchPlugin from '../plugins/dispatch.js'
import docsPlugin from '../plugins/docs.js'
import eventsPlugin from '../plugins/events.js'
import privacyPlugin from '../plugins/privacy.js'
import idempotencyPlugin from '../plugins/idempotency.js'
import qualityGuardPlugin from '../plugins/quality-guard.js'
import inboxPlugin from '../plugins/inbox.js'
import closingConnectionsPlugin from '../plugins/closing-connections.js'
import lingeringClosePlugin from '../plugins/lingering-close.js'
import mediaPlugin from '../plugins/media.js'
import metricsPlugin from '../plugins/metrics.js'
import pacerPlugin from '../plugins/pacer.js'
import planPlugin from '../plugins/plan.js'
import rateLimitPlugin from '../plugins/rate-limit.js'
import redisPlugin from '../plugins/redis.js'
import relaysPlugin from '../plugins/relays.js'
import requestShapePlugin, { refuseUnstorableFields } from '../plugins/request-shape.js'
import scopesPlugin from '../plugins/scopes.js'
import senderPlugin from '../plugins/sender.js'
import sendPlugin from '../plugins/send.js'
import sendQueuePlugin from '../plugins/send-queue.js'
import serviceWindowPlugin from '../plugins/service-window.js'
import sessionPlugin from '../plugins/session.js'
import templateSyncPlugin from '../plugins/template-sync.js'
import upstreamPlugin from '../plugins/upstream.js'
import workPlugin from '../plugins/work.js'
import dashboardRoutes from '../routes/dashboard/index.js'
import audienceReportRoutes from '../routes/audience-reports.js'
import rootRoutes from '../routes/dashboard/root.js'
import healthRoutes from '../routes/health.js'
import messageReadRoutes from '../routes/message-reads.js'
import mediaRoutes from '../routes/media.js'
import metricsRoutes from '../routes/metrics.js'
import messageRoutes from '../routes/messages.js'
import suppressionRoutes from '../routes/suppressions.js'
import templateRoutes from '../routes/templates.js'
import campaignRoutes from '../routes/campaigns.js'
import relayRoutes from '../routes/relays.js'
import conversationRoutes from '../routes/conversations.js'
import inboundRoutes from '../routes/inbound.js'
import erasureRoutes from '../routes/erasures.js'
import webhookRoutes from '../routes/webhooks.js'
import type { Config } from './config.js'
import type { Runtime } from './runtime.js'
import { handleError } from './error-handler.js'
import { applyAudienceIntake, optOutKeywords } from './audience/effects.js'
import { emitIntakeEvents } from './events/intake-events.js'
import { relayReceived } from './relay/intake.js'
import { recordInboundMedia } from './media/inbound.js'
import { methodNotAllowed, notFound } from './errors.js'
import { lazySchemaController } from './http/lazy-schemas.js'
import { answerClientError, answerFrameworkError } from './http/framework-errors.js'
import { loggerOptions } from './logger.js'
import { trackRouteMethods } from './route-methods.js'

export interface AppOptions {
  config: Config
  /** false silences logging (tests); default: pino at config.LOG_LEVEL */
  logger?: boolean
  /** where log lines go instead of stdout (tests that read the logs) */
  logStream?: { write(line: string): void }
  /** the database already opening (the sandbox starts it before loading the app's modules); default: opened by the db plugin */
  runtime?: Promise<Runtime>
  /** each route's validators and serializers compiled at its first request, not at start (the sandbox: src/http/lazy-schemas.ts) */
  lazySchemas?: boolean
}

/** The composition root: every plugin and route the gateway has, in order. Never listens. */
export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const app = Fastify({
    logger: options.logger === false ? false : { ...loggerOptions(config) as object, ...(options.logStream && { stream: options.logStream }) },
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    // Opening the embedded database (and migrating it) on a busy small machine can take longer than
    // Fastify's default 10 s per plugin; a start that is slow is not a start that failed.
    pluginTimeout: 120_000,
    ajv: { customOptions: { coerceTypes: false, allErrors: false } },
    ...(options.lazySchemas === true && { schemaController: lazySchemaController() }),
    // what never reaches a hook (an undecodable path, a request that is not HTTP) is answered in the envelope too
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError
  })
  const allowedMethods = trackRouteMethods(app)

  app.setErrorHandler(handleError)
  app.setNotFoundHandler(async function unmatched (request) {
    const allow = allowedMethods(request.url.split('?')[0])
    throw allow.length > 0 ? methodNotAllowed(allow) : notFound(`No route for ${request.method} ${request.url.split('?')[0]}`)
  })

  // first of all hooks: a malformed target or a repeated header never reaches another (CONTRACT.md 12)
  await app.register(requestShapePlugin)
  // an answer that comes before the body reaches the client still writing it (CONTRACT.md 12)
  await app.register(lingeringClosePlugin)
  await app.register(closingConnectionsPlugin)
  await app.register(dbPlugin, { config, runtime: options.runtime })
  await app.register(metricsPlugin)
  await app.register(redisPlugin)
  await app.register(workPlugin)
  await app.register(eventsPlugin)
  await app.register(relaysPlugin)
  await app.register(privacyPlugin)
  await app.register(upstreamPlugin)
  await app.register(connectionsPlugin)
  await app.register(templateSyncPlugin)
  await app.register(qualityGuardPlugin)
  const keywords = optOutKeywords(config.OPT_OUT_KEYWORDS)
  // the intake's changes, the customer events they cause, the relay deliveries, the mirroring of
  // inbound media and the quality guard's pauses commit together
  await app.register(inboxPlugin, {
    async onApplied (tx, applied, received) {
      const limits = await app.qualityGuard.limitsBefore(tx, applied)
      await recordInboundMedia(tx, applied.inbound, { mirror: config.MEDIA_MIRROR === 'on' })
      await emitIntakeEvents(tx, applied, received)
      await relayReceived(tx, received)
      await app.readPolicy.received(tx, applied.inbound)
      await applyAudienceIntake(tx, applied, { optOutKeywords: keywords })
      await app.qualityGuard.intake(tx, applied, limits)
    }
  })
  await app.register(pacerPlugin)
  await app.register(conversationsPlugin)
  await app.register(dispatchPlugin)
  await app.register(audiencePlugin)
  await app.register(serviceWindowPlugin)
  await app.register(sendPlugin)
  await app.register(sendQueuePlugin)
  await app.register(docsPlugin)
  // Route hooks run in this order (CONTRACT.md 2, 16): 401, 429, 403 plan, 403 scope, 409; then the
  // body (413, 415; 403 for a number the key may not send from; 422).
  await app.register(rateLimitPlugin)
  await app.register(authPlugin)
  await app.register(planPlugin)
  await app.register(scopesPlugin)
  await app.register(senderPlugin)
  // then the Idempotency-Key (422 when malformed), taken with the log record
  await app.register(idempotencyPlugin)
  await app.register(mediaPlugin)

  await app.register(healthRoutes)
  await app.register(metricsRoutes)
  await app.register(webhookRoutes)
  await app.register(async function api (api) {
    await api.register(bodyParsersPlugin)
    await api.register(messageRoutes)
    await api.register(messageReadRoutes)
    await api.register(mediaRoutes)
    await api.register(suppressionRoutes)
    await api.register(audienceReportRoutes)
    await api.register(campaignRoutes)
    await api.register(relayRoutes)
    await api.register(templateRoutes)
    await api.register(inboundRoutes)
    await api.register(conversationRoutes)
    await api.register(erasureRoutes)
  })
  await app.register(async function dashboard (dashboard) {
    await dashboard.register(formbody)
    dashboard.addHook('preValidation', refuseUnstorableFields)
    await dashboard.register(sessionPlugin)
    await dashboard.register(csrfPlugin)
    await dashboard.register(dashboardRoutes, { prefix: '/dashboard' })
  })
  await app.register(rootRoutes)
  return app
}
