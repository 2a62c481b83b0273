import type { FastifyReply, FastifyRequest } from 'fastify'
import { clientGone } from '../dispatch/client-gone.js'
import { prefersRespondAsync } from '../messages/prefer.js'
import type { SendMessageBody } from '../messages/schemas.js'
import type { SendRequest } from './service.js'

/** POST /api/messages.php's request as the send service takes it: what the route's hooks resolved. */
export function sendOfRequest (request: FastifyRequest, reply: FastifyReply): SendRequest {
  return {
    // validated by the route's schema
    body: request.body as SendMessageBody,
    workspaceId: request.apiKey.workspaceId,
    apiKeyId: request.apiKey.id,
    active: request.activeConnection,
    sender: request.sender,
    file: request.mediaFile,
    queued: prefersRespondAsync(request.headers.prefer),
    idempotency: request.idempotency,
    arrivedAt: Date.now() - reply.elapsedTime,
    signal: clientGone(reply)
  }
}
