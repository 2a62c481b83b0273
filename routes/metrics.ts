import type { FastifyPluginAsync } from 'fastify'
import { sameSecret } from '../src/crypto/constant-time.js'
import { notFound, unauthorized } from '../src/errors.js'

/** GET /metrics for Prometheus: 404 unless METRICS_TOKEN is set, then that bearer token (compared in constant time). */
const metricsRoute: FastifyPluginAsync = async function (app) {
  app.get('/metrics', { schema: { hide: true } }, async function scrape (request, reply) {
    const token = app.config.METRICS_TOKEN
    if (token === undefined) throw notFound('No route for GET /metrics')
    const presented = /^bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? ''
    if (!sameSecret(presented, token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"')
      throw unauthorized('Metrics token missing or wrong')
    }
    await app.metrics.collectQueues()
    reply.type(app.metrics.registry.contentType)
    return await app.metrics.registry.metrics()
  })
}

export default metricsRoute
