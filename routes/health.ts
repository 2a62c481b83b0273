import type { FastifyPluginAsync } from 'fastify'
import { serviceUnavailable } from '../src/errors.js'

const health: FastifyPluginAsync = async function (app) {
  app.get('/healthz', async function alive () {
    return { ok: true }
  })

  app.get('/readyz', async function ready (request) {
    try {
      await app.database.ping()
    } catch (error) {
      request.log.warn({ err: error }, 'database unreachable')
      throw serviceUnavailable('not_ready', 'The database is unreachable')
    }
    return { ok: true }
  })
}

export default health
