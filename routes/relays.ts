import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actors } from '../src/access/audit.js'
import { invalidRequest, notFound } from '../src/errors.js'
import { ErrorEnvelopeSchema } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { publicRelay } from '../src/resources/relay.js'
import { OkSchema, RelayAddedSchema, RelayBodySchema, RelayIdQuerySchema, RelayListSchema } from '../src/relay/schemas.js'
import { addRelay, RelayInputError, removeRelay } from '../src/relay/targets.js'

const errors = { '4xx': ErrorEnvelopeSchema, '5xx': ErrorEnvelopeSchema }
const config = { auth: 'apiKey', scopes: ['relays:write'], rateLimit: {} } as const

/** Relay targets (CONTRACT.md 18): where the workspace's share of Meta's webhook is passed on. */
const relays: FastifyPluginAsyncTypebox = async function (app) {
  const common = { tags: ['relays'], security: [{ apiKey: [] }] }

  app.post('/api/relays.php', {
    config,
    schema: {
      ...common,
      operationId: 'addRelay',
      summary: 'Relay Meta\'s webhook to another tool',
      description: 'The target receives what Meta sent for this workspace, signed with X-Hub-Signature-256 (app secret, or its own with signing own: the secret is in this answer only). Needs the relays:write scope.',
      body: RelayBodySchema,
      response: { 201: RelayAddedSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function addRelayTarget (request, reply) {
    const { url, fields, phone_number_ids: phoneNumberIds, signing } = request.body
    try {
      const { relay, secret } = await addRelay(app, { workspaceId: request.apiKey.workspaceId, url, fields, phoneNumberIds, signing }, actors.key(request))
      return await reply.code(201).send({ ok: true as const, relay: { ...publicRelay(relay), ...(secret && { secret }) } })
    } catch (error) {
      throw error instanceof RelayInputError ? invalidRequest(error.message, error.field) : error
    }
  })

  app.get('/api/relays.php', {
    config,
    schema: { ...common, operationId: 'listRelays', summary: 'List the workspace\'s relay targets', description: 'Never their secrets. Needs the relays:write scope.', response: { 200: RelayListSchema, ...errors } }
  }, async function listRelays (request) {
    return { ok: true as const, relays: (await app.relays.targets(request.apiKey.workspaceId)).map(publicRelay) }
  })

  app.delete('/api/relays.php', {
    config,
    schema: { ...common, operationId: 'removeRelay', summary: 'Remove a relay target', description: 'Nothing more is sent to it; 404 when unknown. Needs the relays:write scope.', querystring: RelayIdQuerySchema, response: { 200: OkSchema, ...errors } },
    schemaErrorFormatter: bodyValidationError
  }, async function removeRelayTarget (request) {
    if (!await removeRelay(app.relays, actors.key(request), request.query.id, request.apiKey.workspaceId)) throw notFound('No such relay target in this workspace')
    return { ok: true as const }
  })
}

export default relays
