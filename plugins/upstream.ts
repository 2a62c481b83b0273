import fp from 'fastify-plugin'
import { createUpstreamClient, type UpstreamClient } from '../src/upstream/client.js'

declare module 'fastify' {
  interface FastifyInstance { upstream: UpstreamClient }
}

/** The Graph API client: keep-alive connections, a timeout per call, no retries of its own. */
export default fp(async function upstream (app) {
  app.decorate('upstream', createUpstreamClient({ baseUrl: app.config.GRAPH_API_URL, timeoutMs: app.config.UPSTREAM_TIMEOUT_MS }))
}, { name: 'upstream', dependencies: ['db'] })
