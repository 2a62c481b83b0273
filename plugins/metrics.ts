import fp from 'fastify-plugin'
import { observeStatements } from '../src/metrics/db-timing.js'
import { createMetrics, type Metrics } from '../src/metrics/registry.js'

declare module 'fastify' {
  interface FastifyInstance { metrics: Metrics }
}

/** Prometheus metrics (CONTRACT.md 11): this app's registry, request counts by route and status, statement times. */
export default fp(async function metrics (app) {
  const metrics = createMetrics(app.database.db)
  app.decorate('metrics', metrics)
  const stop = observeStatements(seconds => metrics.statements.observe(seconds))
  app.addHook('onResponse', async function countRequest (request, reply) {
    // the route's pattern, never the raw URL: ids and query strings would make a label per request
    metrics.requests.inc({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) })
  })
  app.addHook('onClose', async function stopTiming () { stop() })
}, { name: 'metrics', dependencies: ['db'] })
