import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { answerVerdict, claimRefused, sendOfMessage } from '../src/audience/decide.js'
import { slotOf, untilDispatch } from '../src/audience/slots.js'
import { clientGone } from '../src/dispatch/client-gone.js'
import { preferFieldsOverAliases } from '../src/messages/aliases.js'
import { withFilePlaceholder } from '../src/media/one-call.js'
import { composeMessage } from '../src/messages/compose.js'
import { pendingMessage } from '../src/messages/payload.js'
import { prefersRespondAsync } from '../src/messages/prefer.js'
import { SendHeadersSchema, SendMessageBodySchema, SendResponses } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { SlotRefused } from '../src/store/messaging-limit.js'

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
    const { apiKey, sender, activeConnection } = request
    // a file part stands in for media_id until it is uploaded (CONTRACT.md 13)
    const composed = await composeMessage(withFilePlaceholder(request.body, request.mediaFile?.file), name => app.audience.templatesNamed(activeConnection.connection, name))
    // a user id the upstream has since replaced is sent to its successor (CONTRACT.md 16)
    const message = { ...composed, recipient: await app.userIds.current(apiKey.workspaceId, composed.recipient) }
    await app.checkServiceWindow(activeConnection.connection, sender.phoneNumberId, message)
    // the audience rules (CONTRACT.md 14): a synchronous send takes its messaging-limit slot with its log record (the verdict's claim)
    const stage = prefersRespondAsync(request.headers.prefer) ? 'hand-over' : 'record'
    const verdict = await app.audience.decide(sendOfMessage(message, apiKey.workspaceId, activeConnection, sender.phoneNumberId), stage)
    answerVerdict(verdict, stage)
    const claim = verdict.go === 'send' ? verdict.claim : undefined
    let slot = slotOf(verdict)
    const sendable = await untilDispatch(app.audience.giveBack, slot, async () => await app.mediaFiles.attach(request, reply, pendingMessage(message, apiKey, sender, request.body.client_reference)))
    if (!sendable) return reply // answered from its Idempotency-Key, nothing uploaded
    const { pending, fingerprint, mediaId } = sendable
    if (stage === 'hand-over') {
      const queued = await app.logSend(request, reply, pending, 'queue', fingerprint)
      if (!queued) return reply // answered from its Idempotency-Key
      return await reply.code(202).headers({ 'preference-applied': 'respond-async', location: `/api/messages.php?id=${queued.id}` })
        .send({ ok: true as const, id: queued.id, status: 'queued' as const, ...(mediaId && { media_id: mediaId }) })
    }
    const record = await untilDispatch(app.audience.giveBack, slot, async () => await app.logSend(request, reply, { ...pending, dispatcherId: app.dispatcherId }, 'send', fingerprint, claim))
      .catch((error: unknown) => { throw error instanceof SlotRefused && claim ? claimRefused(claim, error.nextSlotAt) : error })
    if (!record) return reply // answered from its Idempotency-Key
    slot ??= claim?.slot
    const { wamid } = await app.dispatch(record, {
      connection: request.activeConnection.connection,
      throughputLevel: sender.throughputLevel,
      // counted from the request's arrival: the time spent on checks and the log record is part of it
      deadline: Date.now() - reply.elapsedTime + app.config.DISPATCH_DEADLINE_MS,
      signal: clientGone(reply),
      slot
    })
    return { ok: true as const, id: record.id, wamid, status: 'sent' as const, ...(mediaId && { media_id: mediaId }) }
  })
}

export default messages
