import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actors } from '../src/access/audit.js'
import { suppressionTarget } from '../src/audience/suppression-target.js'
import { invalidRequest, notFound } from '../src/errors.js'
import { ErrorEnvelopeSchema } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { erasureCursor } from '../src/privacy/cursor.js'
import { erasureView } from '../src/privacy/erasures.js'
import { ErasureBodySchema, ErasureListSchema, ErasureOkSchema, ErasureQuerySchema } from '../src/privacy/schemas.js'

const errors = { '4xx': ErrorEnvelopeSchema, '5xx': ErrorEnvelopeSchema }

/** One person erased (CONTRACT.md 17): asked for here, carried out by the `erasures` task (plugins/privacy.ts). */
const erasures: FastifyPluginAsyncTypebox = async function (app) {
  const common = { tags: ['privacy'], security: [{ apiKey: [] }] }

  app.post('/api/erasures.php', {
    config: { auth: 'apiKey', scopes: ['privacy:write'], rateLimit: {} },
    schema: {
      ...common,
      operationId: 'eraseContact',
      summary: 'Erase one person: their records, inbound messages, files and rows',
      description: 'By phone number (to) or business-scoped user id (recipient), and every id linked to it. 202 at once; GET with the id shows when it completed. The opt-out is kept as an HMAC of the number. Needs the privacy:write scope.',
      body: ErasureBodySchema,
      response: { 202: ErasureOkSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function eraseContact (request, reply) {
    const target = suppressionTarget(request.body, true)!
    if ('problem' in target) throw invalidRequest(target.problem, target.field)
    const erasure = await app.privacy.requestErasure({ workspaceId: request.apiKey.workspaceId, recipient: target.recipient, who: actors.key(request) })
    return await reply.code(202).send({ ok: true as const, erasure: erasureView(erasure) })
  })

  app.get('/api/erasures.php', {
    config: { auth: 'apiKey', scopes: ['privacy:write'], rateLimit: {} },
    schema: {
      ...common,
      operationId: 'readErasures',
      summary: 'Read one erasure (?id=) or list them, newest first',
      description: 'Paged with next_cursor. Needs the privacy:write scope.',
      querystring: ErasureQuerySchema,
      response: { 200: Type.Union([ErasureOkSchema, ErasureListSchema]), ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function readErasures (request) {
    const { workspaceId } = request.apiKey
    const { id, limit: given, cursor } = request.query
    if (id !== undefined) {
      const erasure = await app.erasures.get(id, workspaceId) ?? (() => { throw notFound('No such erasure') })()
      return { ok: true as const, erasure: erasureView(erasure) }
    }
    const limit = given === undefined ? 50 : Number(given)
    const afterId = cursor === undefined ? undefined : erasureCursor.decode(cursor)
    const rows = await app.erasures.list(workspaceId, { limit: limit + 1, afterId }) ?? (() => { throw erasureCursor.bad() })()
    const page = rows.slice(0, limit)
    return { ok: true as const, erasures: page.map(erasureView), next_cursor: rows.length > limit ? erasureCursor.encode(page[page.length - 1].id) : null }
  })
}

export default erasures
