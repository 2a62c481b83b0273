import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { typingEnds, TYPING_SHOWS_MS } from '../src/conversations/read-marks.js'
import { inboundPage, inboundViews } from '../src/conversations/reads.js'
import { InboundActionQuerySchema, InboundActionSchema, InboundQuerySchema, InboundReadSchema, TypingBodySchema } from '../src/conversations/schemas.js'
import { notFound } from '../src/errors.js'
import { ErrorEnvelopeSchema, ErrorHeaders } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { integerQuery } from '../src/query-integers.js'

const API = { auth: 'apiKey', rateLimit: {}, plan: ['growth', 'scale'] } as const
const errors = (more: string) => ({
  '4xx': { ...ErrorEnvelopeSchema, description: `401, 403, 404 not_found, 422 invalid_request naming the parameter${more}, 429`, headers: ErrorHeaders['4xx'] },
  '5xx': { ...ErrorEnvelopeSchema, description: '502 when the upstream refused; 503 with Retry-After when the database is unavailable', headers: ErrorHeaders['5xx'] }
})

/** /api/inbound.php (CONTRACT.md 19): inbound messages by API, and their read receipts and typing indicators. */
const inbound: FastifyPluginAsyncTypebox = async function (app) {
  const deps = { db: app.database.db, inbound: app.inbound, conversations: app.conversations, media: app.media }
  const notYours = () => notFound('No inbound message with this id in your workspace')

  app.get('/api/inbound.php', {
    config: { ...API, scopes: ['messages:read'] },
    schema: {
      operationId: 'readInbound',
      tags: ['conversations'],
      summary: 'Read an inbound message, or list them',
      description: 'With id or wamid: that message. Without: inbound messages newest first, filtered by from, recipient (user id), phone_number_id, type and since; page with next_cursor.',
      security: [{ apiKey: [] }],
      querystring: InboundQuerySchema,
      response: { 200: InboundReadSchema, ...errors('') }
    },
    schemaErrorFormatter: bodyValidationError,
    preValidation: integerQuery
  }, async function readInbound (request) {
    const { query } = request
    const { workspaceId } = request.apiKey
    if (query.id === undefined && query.wamid === undefined) return { ok: true as const, ...await inboundPage(deps, workspaceId, query) }
    const message = await app.inbound.find(workspaceId, query) ?? (() => { throw notYours() })()
    return { ok: true as const, message: (await inboundViews(deps, workspaceId, [message]))[0] }
  })

  app.post('/api/inbound.php', {
    config: { ...API, scopes: ['messages:send'] },
    schema: {
      operationId: 'markInbound',
      tags: ['conversations'],
      summary: 'Mark an inbound message read, or show a typing indicator',
      description: 'action=read marks it (and the person\'s earlier unread messages to that number) read upstream. action=typing shows a typing indicator (and marks it read) for 25 s; with {"until":"reply","max_seconds":N} it is renewed every 20 s until a message is sent to the person from that number or N seconds pass. 422 too_old for a message received more than 30 days ago.',
      security: [{ apiKey: [] }],
      querystring: InboundActionQuerySchema,
      body: TypingBodySchema,
      response: { 200: InboundActionSchema, ...errors(', 422 too_old') }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function markInbound (request) {
    const message = await app.inbound.find(request.apiKey.workspaceId, { id: request.query.id }) ?? (() => { throw notYours() })()
    const typing = request.query.action === 'typing'
    const now = new Date()
    const readAt = await app.readMarks.mark(message, { typing, now })
    if (!typing) return { ok: true as const, read_at: readAt.toISOString() }
    const body = request.body ?? {}
    if (body.until !== 'reply') return { ok: true as const, read_at: readAt.toISOString(), typing_until: new Date(now.getTime() + TYPING_SHOWS_MS).toISOString() }
    const until = typingEnds(now, body.max_seconds ?? 25)
    await app.readPolicy.typingStarted(message, now, until)
    return { ok: true as const, read_at: readAt.toISOString(), typing_until: until.toISOString() }
  })
}

export default inbound
