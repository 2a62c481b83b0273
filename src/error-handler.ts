import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, invalidRequest, payloadTooLarge, unsupportedMediaType } from './errors.js'
import { unavailableAnswer } from './faults/answer.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the setting a route's own body limit comes from, named in its 413 (CAMPAIGN_BODY_LIMIT_BYTES) */
    bodyLimitSetting?: string
    /** what a route's 415 tells the client to send, when not the API's usual bodies (the upload: multipart/form-data) */
    accepts?: string
  }
}

/** Turns anything thrown on any route into the error envelope `{ ok: false, error, code }`. */
export function handleError (this: { config?: { BODY_LIMIT_BYTES: number } }, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = toAppError(error, this.config?.BODY_LIMIT_BYTES ?? 0, request)
  if (!known) {
    request.log.error({ err: error }, 'unexpected error')
    return reply.code(500).send({ ok: false, error: 'Internal error', code: 'internal_error' })
  }
  if (known.statusCode >= 500) request.log.warn({ code: known.code, err: known.message }, 'request failed')
  if (known.extra.retryAfterSeconds !== undefined) reply.header('retry-after', String(known.extra.retryAfterSeconds))
  if (known.extra.allow) reply.header('allow', known.extra.allow)
  const { field, upstream, id, at } = known.extra
  return reply.code(known.statusCode).send({ ok: false, error: known.message, code: known.code, ...(field && { field }), ...(id && { id }), ...(upstream && { upstream }), ...at })
}

/** What a thrown error means to the client, as an AppError (the dashboard's pages use it too); undefined for a fault of ours (500). */
export function toAppError (error: FastifyError, bodyLimit: number, request: FastifyRequest): AppError | undefined {
  if (error instanceof AppError) return error
  // a dependency that blinked: 503 with Retry-After, never a 500 (src/faults)
  const unavailable = unavailableAnswer(error)
  if (unavailable) return unavailable
  if (error.validation) {
    const [first] = error.validation
    const missing = (first?.params as { missingProperty?: string } | undefined)?.missingProperty
    const path = [first?.instancePath.replace(/^\//, '').replace(/\//g, '.'), missing].filter(Boolean).join('.')
    return invalidRequest(path ? `${path}: ${missing ? 'is required' : first?.message ?? 'is invalid'}` : error.message, path || undefined)
  }
  switch (error.code) {
    // the route's own limit when it has one (the webhook route's is WEBHOOK_BODY_LIMIT_BYTES), not the API's
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return payloadTooLarge(request.routeOptions.bodyLimit ?? bodyLimit, request.routeOptions.config?.bodyLimitSetting)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return unsupportedMediaType(request.headers['content-type'], request.routeOptions.config?.accepts)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return invalidRequest('The request body is empty')
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return invalidRequest('The request body is not valid JSON')
  }
  if (error instanceof SyntaxError) return invalidRequest('The request body is not valid JSON')
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) return new AppError(status === 400 ? 422 : status, status === 400 ? 'invalid_request' : 'client_error', error.message)
  return undefined
}
