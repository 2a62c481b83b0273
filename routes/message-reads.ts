import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { notFound } from '../src/errors.js'
import { badCursor, encodeCursor } from '../src/messages/cursor.js'
import { listFilters } from '../src/messages/list-query.js'
import { messageView, messageWithHistory } from '../src/resources/message.js'
import { MessageQuerySchema, MessageReadSchema } from '../src/messages/read-schemas.js'
import { ErrorEnvelopeSchema, ErrorHeaders } from '../src/messages/schemas.js'
import { integerQuery } from '../src/query-integers.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'

/** GET /api/messages.php (CONTRACT.md 7): one message with its history, or a page of the log. The send's 401 → 429 → 403; no connection needed. */
const messageReads: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/api/messages.php', {
    config: { auth: 'apiKey', scopes: ['messages:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      operationId: 'readMessages',
      tags: ['messages'],
      summary: 'Read a message and its status history, or list messages',
      description: 'Needs a key with the messages:read scope. With id or wamid: that message and its whole history (404 for an unknown id or another workspace\'s message). ' +
        'Without: messages newest first, filtered by status, to, recipient_user_id, since, client_reference and campaign_id; page with next_cursor.',
      security: [{ apiKey: [] }],
      querystring: MessageQuerySchema,
      response: {
        200: { ...MessageReadSchema, description: 'One message with its history, or a page of messages.' },
        '4xx': { ...ErrorEnvelopeSchema, description: '401, 403, 404 not_found, 422 invalid_request naming the parameter, 429', headers: ErrorHeaders['4xx'] },
        '5xx': { ...ErrorEnvelopeSchema, description: '503 with Retry-After when the database is unavailable', headers: ErrorHeaders['5xx'] }
      }
    },
    schemaErrorFormatter: bodyValidationError,
    preValidation: integerQuery
  }, async function readMessages (request) {
    const { query } = request
    const { workspaceId } = request.apiKey
    if (query.id !== undefined || query.wamid !== undefined) {
      const message = await app.messageReads.find(workspaceId, query)
      if (!message) throw notFound('No message with this id in your workspace')
      return { ok: true as const, message: messageWithHistory(message, await app.statusEvents.history(message.id)) }
    }
    const page = await app.messageReads.page(workspaceId, listFilters(query)) ?? (() => { throw badCursor() })()
    const last = page.rows.at(-1)
    return { ok: true as const, messages: page.rows.map(row => messageView(row)), next_cursor: page.more && last ? encodeCursor(last.id) : null }
  })
}

export default messageReads
