import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { conversationsPage } from '../src/conversations/reads.js'
import { ConversationQuerySchema, ConversationReadSchema } from '../src/conversations/schemas.js'
import { invalidRequest } from '../src/errors.js'
import { ErrorEnvelopeSchema, ErrorHeaders } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { integerQuery } from '../src/query-integers.js'

/** GET /api/conversations.php (CONTRACT.md 19): a thread both ways, or the list of conversations (never a scan of the messages). */
const conversations: FastifyPluginAsyncTypebox = async function (app) {
  const deps = { db: app.database.db, inbound: app.inbound, conversations: app.conversations, media: app.media }
  app.get('/api/conversations.php', {
    config: { auth: 'apiKey', scopes: ['messages:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      operationId: 'readConversations',
      tags: ['conversations'],
      summary: 'Read a thread, or list conversations',
      description: 'With to (or recipient) and optionally phone_number_id: the messages both ways, newest first. Without: one conversation per (person, number), most recently active first, with its unread count and when its service window ends. Page with next_cursor.',
      security: [{ apiKey: [] }],
      querystring: ConversationQuerySchema,
      response: {
        200: ConversationReadSchema,
        '4xx': { ...ErrorEnvelopeSchema, description: '401, 403, 422 invalid_request naming the parameter, 429', headers: ErrorHeaders['4xx'] },
        '5xx': { ...ErrorEnvelopeSchema, description: '503 with Retry-After when the database is unavailable', headers: ErrorHeaders['5xx'] }
      }
    },
    schemaErrorFormatter: bodyValidationError,
    preValidation: integerQuery
  }, async function readConversations (request) {
    if (request.query.to !== undefined && request.query.recipient !== undefined) throw invalidRequest('Give to or recipient, not both', 'recipient')
    return { ok: true as const, ...await conversationsPage(deps, request.apiKey.workspaceId, request.query) }
  })
}

export default conversations
