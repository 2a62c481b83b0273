import type { FastifyReply } from 'fastify'

/**
 * Aborts when the client disconnects before its answer is written. (request.signal also aborts
 * once the request body has been read, so it cannot tell.)
 */
export function clientGone (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', function closed () {
    if (!reply.raw.writableFinished) controller.abort()
  })
  return controller.signal
}
