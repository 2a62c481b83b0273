import multipart from '@fastify/multipart'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { lazySchemaController } from '../../http/lazy-schemas.js'
import { registerBodyParsers } from './body-parsers.js'
import type { EmulatorContext } from './context.js'
import { GraphError } from './graph-error.js'
import { mediaDownloadRoutes, mediaRoutes } from './routes/media.js'
import { messageTemplateRoutes } from './routes/message-templates.js'
import { messagesRoutes } from './routes/messages.js'
import { phoneNumberRoutes } from './routes/phone-numbers.js'
import { subscribedAppRoutes } from './routes/subscribed-apps.js'
import { templateManagementRoutes } from './routes/template-management.js'
import type { RecordedRequest } from './types.js'

export function buildEmulatorApp (context: EmulatorContext, logger: boolean): FastifyInstance {
  // hung requests must not hold close() open
  // schemas compiled at each route's first request: a quicker start (src/http/lazy-schemas.ts)
  const app = Fastify({ logger, forceCloseConnections: true, schemaController: lazySchemaController() })
  const records = new WeakMap<FastifyRequest, RecordedRequest>()
  registerBodyParsers(app)
  // uploads are read by the route; a little above the largest kind (documents, 100 MB)
  app.register(multipart, { limits: { fileSize: 200 * 1024 * 1024, files: 4 } })

  app.addHook('onRequest', async function recordRequest (request) {
    const record: RecordedRequest = {
      method: request.method,
      path: pathOf(request.url, context.basePath),
      query: { ...(request.query as Record<string, unknown>) },
      headers: request.headers,
      body: undefined,
      at: Date.now()
    }
    records.set(request, record)
    context.requests.push(record)
  })
  app.addHook('preHandler', async function recordBody (request) {
    const record = records.get(request)
    if (record) record.body = request.body
  })

  app.setErrorHandler(function graphErrorHandler (error: FastifyError, request, reply) {
    if (!(error instanceof GraphError) && (error.statusCode ?? 500) >= 500) request.log.error(error)
    return sendGraphError(context, reply, error instanceof GraphError ? error : fromFastifyError(error))
  })
  app.setNotFoundHandler(function unknownPath (request, reply) {
    const message = `Unknown path components: ${pathOf(request.url, context.basePath)}`
    return sendGraphError(context, reply, new GraphError(2500, { message, details: message }))
  })

  app.register(async function graphApi (api) {
    await api.register(messagesRoutes(context))
    await api.register(phoneNumberRoutes(context))
    await api.register(messageTemplateRoutes(context))
    await api.register(templateManagementRoutes(context))
    await api.register(subscribedAppRoutes(context))
    await api.register(mediaRoutes(context))
  }, { prefix: context.basePath })
  // download URLs are served beside the Graph API, as the upstream's are (another host there)
  app.register(mediaDownloadRoutes(context))
  return app
}

function sendGraphError (context: EmulatorContext, reply: FastifyReply, error: GraphError): FastifyReply {
  context.stats.errors[error.code] = (context.stats.errors[error.code] ?? 0) + 1
  return reply.code(error.httpStatus).headers(error.headers).send(error.toEnvelope())
}

function fromFastifyError (error: FastifyError): GraphError {
  const status = error.statusCode ?? 500
  if (status >= 500) return new GraphError(1, { httpStatus: 500, details: 'An unknown error occurred' })
  return new GraphError(100, { details: error.message })
}

function pathOf (url: string, basePath: string): string {
  const path = url.split('?')[0]
  return basePath !== '' && path.startsWith(basePath) ? path.slice(basePath.length) || '/' : path
}
