import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actors, audit } from '../src/access/audit.js'
import { badSuppressionCursor, decodeSuppressionCursor, encodeSuppressionCursor } from '../src/audience/cursor.js'
import { OkSchema, SuppressionAddedSchema, SuppressionBodySchema, SuppressionListSchema, SuppressionQuerySchema } from '../src/audience/schemas.js'
import { invalidRequest, notFound } from '../src/errors.js'
import { ErrorEnvelopeSchema } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import type { Suppression } from '../src/store/suppressions.js'
import { suppressionTarget, suppressionView as view } from '../src/audience/suppression-target.js'

const errors = { '4xx': ErrorEnvelopeSchema, '5xx': ErrorEnvelopeSchema }

/** The recipient a request names (`to` or `recipient`), or a 422 naming the field at fault. */
function targetOf (given: { to?: string, recipient?: string }, required: boolean): string | undefined {
  const target = suppressionTarget(given, required)
  if (target && 'problem' in target) throw invalidRequest(target.problem, target.field)
  return target?.recipient
}

/** The workspace's suppression list (CONTRACT.md 14): read it, add to it and remove from it by hand (audited). */
const suppressions: FastifyPluginAsyncTypebox = async function (app) {
  const common = { tags: ['audience'], security: [{ apiKey: [] }] }

  app.get('/api/suppressions.php', {
    config: { auth: 'apiKey', scopes: ['messages:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'listSuppressions',
      summary: 'List the recipients MARKETING templates are not sent to',
      description: 'Newest first, paged with next_cursor; ?to= (or ?recipient= for a business-scoped user id) reads one recipient. Entries come from the upstream (131050, user_preferences), opt-out keywords in inbound texts, or by hand. Needs the messages:read scope.',
      querystring: SuppressionQuerySchema,
      response: { 200: SuppressionListSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function listSuppressions (request) {
    const { query } = request
    const limit = query.limit === undefined ? 50 : Number(query.limit)
    const afterId = query.cursor === undefined ? undefined : decodeSuppressionCursor(query.cursor)
    const rows = await app.suppressions.list(request.apiKey.workspaceId, { to: targetOf(query, false), limit: limit + 1, afterId }) ?? (() => { throw badSuppressionCursor() })()
    const page = rows.slice(0, limit)
    return { ok: true as const, suppressions: page.map(view), next_cursor: rows.length > limit ? encodeSuppressionCursor(page[page.length - 1].id) : null }
  })

  app.post('/api/suppressions.php', {
    config: { auth: 'apiKey', scopes: ['suppressions:write'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'addSuppression',
      summary: 'Add a recipient to the suppression list',
      description: 'MARKETING templates to the recipient are refused (422 recipient_opted_out) until removed. A recipient already listed keeps its entry. Needs the suppressions:write scope.',
      body: SuppressionBodySchema,
      response: { 200: SuppressionAddedSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function addSuppression (request) {
    const { workspaceId } = request.apiKey
    const audited = audit.of(actors.key(request), 'suppression.added', (row: Suppression) => ({ workspaceId, target: { kind: 'suppression', id: row.id } }))
    const { suppression } = await app.suppressions.add(workspaceId, targetOf(request.body, true)!, audited)
    return { ok: true as const, suppression: view(suppression) }
  })

  app.delete('/api/suppressions.php', {
    config: { auth: 'apiKey', scopes: ['suppressions:write'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'removeSuppression',
      summary: 'Remove a recipient from the suppression list',
      description: 'Whatever put the recipient there; 404 when not listed. Needs the suppressions:write scope.',
      querystring: SuppressionQuerySchema,
      response: { 200: OkSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function removeSuppression (request) {
    const { workspaceId } = request.apiKey
    const recipient = targetOf(request.query, true)!
    const audited = audit.of(actors.key(request), 'suppression.removed', (row: Suppression) => ({ workspaceId, target: { kind: 'suppression', id: row.id } }))
    if (!await app.suppressions.remove(workspaceId, recipient, audited)) throw notFound('This recipient is not on the suppression list')
    return { ok: true as const }
  })
}

export default suppressions
