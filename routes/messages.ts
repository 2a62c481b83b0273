import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { preferFieldsOverAliases } from '../src/messages/aliases.js'
import { SendHeadersSchema, SendMessageBodySchema, SendResponses } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { sendOfRequest } from '../src/send/request.js'

/** POST /api/messages.php (SPEC.md 4, CONTRACT.md 2): 401 → 429 → 403 → 409 come from the hooks that route config switches on, then the body. */
const messages: FastifyPluginAsyncTypebox = async function (app) {
  app.post('/api/messages.php', {
    config: { auth: 'apiKey', scopes: ['messages:send'], rateLimit: {}, plan: ['growth', 'scale'], sender: true, idempotency: true, mediaFile: 'spool' },
    schema: {
      operationId: 'sendMessage',
      tags: ['messages'],
      summary: 'Send one message through the connected number',
      description: 'Body as JSON or form fields (nested keys as PHP writes them; components and interactive may be a JSON string). The recipient is `to` (a phone number) or `recipient` (a business-scoped user id), exactly one of them. Requires the Growth or Scale plan and a key with the messages:send scope (and, for a key limited to some numbers, one of them). ' +
        'With an Idempotency-Key, a retry gets the first answer again (header Idempotent-Replayed: true) and nothing is sent twice. With `Prefer: respond-async` the message is queued and the answer is 202. ' +
        'A media message sent as multipart may carry its file as the part `file` instead of media_id or link: it is checked and uploaded as by POST /api/media.php (up to MEDIA_MAX_BYTES), then sent by id, and the answer adds `media_id`.',
      security: [{ apiKey: [] }],
      headers: SendHeadersSchema,
      consumes: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      body: SendMessageBodySchema,
      response: SendResponses
    },
    schemaErrorFormatter: bodyValidationError,
    preValidation: preferFieldsOverAliases
  }, async function sendMessage (request, reply) {
    // composed, asked, recorded, then sent or queued: src/send/service.ts; a held Idempotency-Key is answered by plugins/idempotency.ts
    const sent = await app.send.message(sendOfRequest(request, reply))
    const media = sent.mediaId === undefined ? {} : { media_id: sent.mediaId }
    if (sent.status === 'sent') return { ok: true as const, id: sent.record.id, wamid: sent.wamid, status: 'sent' as const, ...media }
    return await reply.code(202).headers({ 'preference-applied': 'respond-async', location: `/api/messages.php?id=${sent.record.id}` })
      .send({ ok: true as const, id: sent.record.id, status: 'queued' as const, ...media })
  })
}

export default messages
