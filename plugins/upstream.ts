import fp from 'fastify-plugin'
import { createUpstreamClient, type UpstreamClient } from '../src/upstream/client.js'

declare module 'fastify' {
  interface FastifyInstance { upstream: UpstreamClient }
}

/** The Graph API client: keep-alive connections, a timeout per call, no retries of its own. */
export default fp(async function upstream (app) {
  const client = createUpstreamClient({ baseUrl: app.config.GRAPH_API_URL, timeoutMs: app.config.UPSTREAM_TIMEOUT_MS, sendConnections: app.config.UPSTREAM_CONNECTIONS })
  app.decorate('upstream', client)
  // onClose hooks run in reverse: this one after dispatch has drained the sends in flight
  app.addHook('onClose', async function closeSendConnections () { await client.close() })
}, { name: 'upstream', dependencies: ['db'] })
