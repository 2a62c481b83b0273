import type { FastifyPluginAsync } from 'fastify'
import { serviceUnavailable } from '../src/errors.js'
import { faultCode } from '../src/faults/classify.js'

const health: FastifyPluginAsync = async function (app) {
  app.get('/healthz', async function alive () {
    return { ok: true }
  })

  // Ready: the database answers, and a configured Redis is connected (CONTRACT.md 12).
  app.get('/readyz', async function ready (request) {
    try {
      await app.database.ping()
    } catch (error) {
      request.log.warn({ code: faultCode(error) }, 'database unreachable')
      throw serviceUnavailable('not_ready', 'The database is unreachable')
    }
    if (app.redis && app.redis.status !== 'ready') throw serviceUnavailable('not_ready', 'Redis is unreachable (REDIS_URL is set)')
    return { ok: true }
  })
}

export default health
