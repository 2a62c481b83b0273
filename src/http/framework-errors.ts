import type { Socket } from 'node:net'
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { invalidRequest } from '../errors.js'
import { requestShapeError } from './request-shape.js'

/**
 * Fastify's `frameworkErrors`: a path the router cannot decode (`/healthz/%C0%AF`) is answered
 * before any hook runs, so it is told here, in the envelope, as the hook would tell it.
 */
export function answerFrameworkError (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = error.code === 'FST_ERR_BAD_URL'
    ? requestShapeError(request.raw.url ?? '/', []) ?? invalidRequest('The path has a malformed percent-encoding', 'path')
    : invalidRequest('The request could not be routed')
  return reply.code(known.statusCode).send({ ok: false, error: known.message, code: known.code, field: known.extra.field })
}

/**
 * Node's `clientError`: a request that is not valid HTTP (bytes that may not stand in a target or a
 * header, headers too large) never reaches Fastify. Answered in the envelope, then the connection closes.
 */
export function answerClientError (error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'The request headers are too large']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request was not received in time']
      : [422, 'The request is not valid HTTP: a target or header has characters that must be percent-encoded or may not appear']
  const body = JSON.stringify({ ok: false, error: message, code: status === 408 ? 'request_timeout' : 'invalid_request' })
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}
