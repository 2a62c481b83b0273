import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { formFieldError, requestShapeError } from '../src/http/request-shape.js'

/**
 * Hostile input stops here, for every route (404s included) and before any other hook: a malformed
 * target or a repeated single header is a 422 naming it (a dashboard page answers it as an error
 * page through its own error handler), so no route has to defend against them.
 */
export default fp(async function requestShape (app) {
  app.addHook('onRequest', async function refuseMalformedRequests (request) {
    const error = requestShapeError(request.url, request.raw.rawHeaders)
    if (error) throw error
  })
}, { name: 'request-shape' })

// never stored: sign-in's `next` is judged by safeReturnPath, any value leading home at worst
const UNSTORED_FIELDS = new Set(['next'])

/** The dashboard's forms: a field no column could store (a NUL) is the 422 page naming it, not a database error. */
export async function refuseUnstorableFields (request: FastifyRequest): Promise<void> {
  const error = formFieldError(request.body, UNSTORED_FIELDS)
  if (error) throw error
}
