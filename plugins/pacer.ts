import fp from 'fastify-plugin'
import { timedPacer } from '../src/metrics/instrument.js'
import { createLocalPacer } from '../src/pacer/local-pacer.js'
import { createRedisPacer } from '../src/pacer/redis-pacer.js'
import type { Pacer } from '../src/pacer/types.js'

declare module 'fastify' {
  interface FastifyInstance { pacer: Pacer }
}

/** Paces sends to the upstream's limits: in this process, or shared by every process through Redis when REDIS_URL is set. */
export default fp(async function pacer (app) {
  const { config } = app
  const shared = {
    queueLimit: config.QUEUE_LIMIT,
    pairRate: { burst: config.PAIR_RATE_BURST, intervalMs: config.PAIR_RATE_INTERVAL_MS }
  }
  const pacer = app.redis
    ? createRedisPacer({ ...shared, redis: app.redis, upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS })
    : createLocalPacer(shared)
  app.decorate('pacer', timedPacer(pacer, app.metrics.pacingWait))
  app.addHook('onClose', async function closePacer () { pacer.close() })
}, { name: 'pacer', dependencies: ['db', 'redis', 'metrics'] })
