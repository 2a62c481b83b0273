import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { rateLimited } from '../src/errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** counts a request that failed authentication against its address; 429 once the address exceeds the limit */
    limitUnauthenticated (request: FastifyRequest, reply: FastifyReply): Promise<void>
  }
}

/**
 * RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS: per API key on routes with `config.rateLimit`,
 * and per address for requests whose key failed. The per-key count runs at preParsing, after
 * authentication (onRequest) has named the key and before any body is read.
 */
export default fp(async function rateLimit (app) {
  const { RATE_LIMIT_MAX: max, RATE_LIMIT_WINDOW_MS: timeWindow } = app.config
  // Added before the limiter's own hook, so a limited route refuses with 503 while Redis is down.
  app.addHook('onRoute', function refuseWithoutSharedLimits (route: RouteOptions) {
    if (route.config?.rateLimit) route.onRequest = [app.requireSharedLimits, ...[route.onRequest ?? []].flat()]
  })
  await app.register(fastifyRateLimit, {
    ...(app.redis && { redis: app.redis, nameSpace: 'outbound:rate-limit:' }),
    global: false,
    hook: 'preParsing',
    max,
    timeWindow,
    enableDraftSpec: true,
    keyGenerator: request => request.apiKey ? `key:${request.apiKey.id}` : `address:${request.ip}`,
    errorResponseBuilder: (_request, context) => rateLimited(Math.max(1, Math.ceil(context.ttl / 1000)))
  })

  const countAddress = app.createRateLimit({ keyGenerator: request => `unauthenticated:${request.ip}` })
  app.decorate('limitUnauthenticated', async function limitUnauthenticated (request: FastifyRequest, reply: FastifyReply) {
    const count = await countAddress(request)
    if (count.isAllowed || !count.isExceeded) return
    reply.header('ratelimit-limit', count.max).header('ratelimit-remaining', 0).header('ratelimit-reset', count.ttlInSeconds)
    throw rateLimited(Math.max(1, count.ttlInSeconds))
  })
}, { name: 'rate-limit', dependencies: ['db', 'redis'] })
