import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { limitsUnavailable } from '../src/errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** the shared Redis when REDIS_URL is set: rate limits and pacing are then shared by every process */
    redis: Redis | null
    /** throws 503 when the shared limits cannot be consulted: better refuse than exceed the upstream's limits */
    requireSharedLimits (): Promise<void>
  }
}

/** One ioredis connection, failing fast while Redis is down and reconnecting on its own. */
export default fp(async function redis (app) {
  const url = app.config.REDIS_URL
  if (!url) {
    app.decorate('redis', null)
    app.decorate('requireSharedLimits', async function sharedLimitsNotNeeded () {})
    return
  }
  // loaded only when configured: a single-process deployment never needs it
  const { Redis } = await import('ioredis')
  const client: Redis = new Redis(url, {
    // commands fail at once while disconnected instead of queueing behind a reconnect
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    // a Redis that stopped answering on an open connection fails the command rather than hanging the request
    commandTimeout: 2000,
    // Reconnect every quarter second at most, however long the outage: a Redis back is used within
    // ~0.25 s (a growing backoff left it unused for up to 2 s after it returned). A refused connect
    // costs nothing, and only the first error of an outage is logged.
    retryStrategy: attempt => Math.min(attempt * 50, 250)
  })
  let warned = false
  client.on('error', error => {
    if (!warned) app.log.warn({ err: error.message }, 'Redis unreachable; sends are refused with 503 until it returns')
    warned = true
  })
  client.on('ready', () => {
    if (warned) app.log.info('Redis is back')
    warned = false
  })
  await new Promise<void>(resolve => {
    // start even when Redis is down: requests get 503 until it answers
    client.once('ready', resolve)
    client.once('error', () => resolve())
  })
  app.decorate('redis', client)
  // async: Fastify waits on a hook's promise (a plain function would have to call done)
  app.decorate('requireSharedLimits', async function requireSharedLimits () {
    if (client.status !== 'ready') throw limitsUnavailable()
  })
  app.addHook('onClose', async () => { client.disconnect() })
}, { name: 'redis', dependencies: ['db'] })
