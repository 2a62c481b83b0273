import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { actors, audit } from '../src/access/audit.js'
import { campaignFromRequest } from '../src/campaigns/create.js'
import { badCampaignCursor, decodeCampaignCursor, encodeCampaignCursor } from '../src/campaigns/cursor.js'
import { CampaignCreatedSchema, CampaignErrors, CampaignQuerySchema, CampaignReadSchema } from '../src/campaigns/schemas.js'
import { requireCampaignNumber } from '../src/campaigns/scope.js'
import { campaignEnded, invalidRequest, noActiveConnection, notFound } from '../src/errors.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { campaignView } from '../src/resources/campaign.js'

const ACTION_AUDIT = { pause: 'campaign.paused', resume: 'campaign.resumed', cancel: 'campaign.cancelled' } as const

/** /api/campaigns.php (CONTRACT.md 15): create (JSON or a CSV upload), act on one (pause, resume, cancel), read one or the list. */
const campaignRoutes: FastifyPluginAsyncTypebox = async function (app) {
  const { config } = app

  // 409 after 401 → 429 → 403, before the body is read: creating and acting need a connected number.
  // Added when the route is, after the hooks of the key, the plan and the scopes. An action's number
  // is the campaign's, known without the body: a key limited to other numbers is refused (403) first.
  async function requireConnection (request: FastifyRequest): Promise<void> {
    const { id } = request.query as { id?: string }
    if (id !== undefined) await requireCampaignNumber(app.campaigns, request.apiKey, id)
    const active = await app.connections.active(request.apiKey.workspaceId)
    if (!active || active.numbers.length === 0) throw noActiveConnection()
    request.activeConnection = active
  }
  app.addHook('onRoute', function connectionFirst (route) {
    if (route.url === '/api/campaigns.php' && route.method === 'POST') route.preParsing = [route.preParsing ?? []].flat().concat(requireConnection)
  })

  app.post('/api/campaigns.php', {
    bodyLimit: config.CAMPAIGN_BODY_LIMIT_BYTES,
    config: { auth: 'apiKey', scopes: ['campaigns:write'], rateLimit: {}, plan: ['growth', 'scale'], mediaFile: 'stream', bodyLimitSetting: 'CAMPAIGN_BODY_LIMIT_BYTES' },
    schema: {
      tags: ['campaigns'],
      operationId: 'createOrActOnCampaign',
      summary: 'Create a campaign (JSON or a CSV upload), or pause, resume or cancel one',
      description: 'Needs a key with the campaigns:write scope. Create: JSON {name, template, language?, phone_number_id?, send_at?, recipients:[{to, variables?, client_reference?}]} ' +
        'or multipart/form-data with those fields and a CSV part `file` (UTF-8; header row: to, one column per body variable named 1, 2, … or by the template\'s named parameters, optional client_reference; ' +
        'a row with a cell that is not UTF-8 is rejected, a file that is not UTF-8 (UTF-16, or most rows invalid) is a 422 on file). ' +
        'Up to 100,000 recipients (rows) per request; invalid rows are reported in `rejected` (the first 100) and not sent; a repeated recipient is sent once. ' +
        'With ?id=…&action=pause|resume|cancel: acts on that campaign and answers it (a key limited to some numbers: only on a campaign of one of them, else 403 insufficient_scope naming its number).',
      security: [{ apiKey: [] }],
      querystring: CampaignQuerySchema,
      consumes: ['application/json', 'multipart/form-data'],
      response: { 200: CampaignReadSchema, 201: CampaignCreatedSchema, ...CampaignErrors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function createOrAct (request, reply) {
    const { apiKey } = request
    const { id, action } = request.query
    if (id !== undefined || action !== undefined) {
      if (id === undefined) throw invalidRequest('id is required with action', 'id')
      if (action === undefined) throw invalidRequest('action is required with id: pause, resume or cancel', 'action')
      const acted = await app.campaigns.act(apiKey.workspaceId, id, action,
        audit.of(actors.key(request), ACTION_AUDIT[action], campaign => ({ workspaceId: campaign.workspaceId, target: { kind: 'campaign', id: campaign.id } })))
      if (!acted) throw notFound('No campaign with this id in your workspace')
      // asking again for the state it is in is answered with it; an ended campaign cannot change
      const ended = acted.campaign.status === 'completed' || (acted.campaign.status === 'cancelled' && action !== 'cancel')
      if (!acted.changed && ended) throw campaignEnded(acted.campaign.status, action)
      if (action !== 'pause') app.sendQueue.wake()
      const read = await app.campaigns.get(apiKey.workspaceId, id)
      return { ok: true as const, campaign: campaignView(read!.campaign, read!.counts) }
    }
    const draft = await campaignFromRequest({
      templatesNamed: async (connection, name) => await app.audience.templatesNamed(connection, name),
      suppressedAmong: async (workspaceId, recipients) => await app.suppressions.suppressedAmong(workspaceId, recipients, recipient => app.privacy.digest(workspaceId, recipient)),
      bodyLimitBytes: config.CAMPAIGN_BODY_LIMIT_BYTES
    }, request)
    const created = await app.campaigns.create(draft.campaign, draft.recipients,
      audit.of(actors.key(request), 'campaign.created', campaign => ({ workspaceId: campaign.workspaceId, target: { kind: 'campaign', id: campaign.id } })))
    app.sendQueue.wake()
    const read = await app.campaigns.get(apiKey.workspaceId, created.id)
    return await reply.code(201).send({ ok: true as const, campaign: campaignView(read!.campaign, read!.counts), rejected: draft.campaign.rejections })
  })

  app.get('/api/campaigns.php', {
    config: { auth: 'apiKey', scopes: ['campaigns:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      tags: ['campaigns'],
      operationId: 'readCampaigns',
      summary: 'Read a campaign with its counts, or list campaigns',
      description: 'Needs a key with the campaigns:read scope. With id: that campaign (404 for an unknown id or another workspace\'s). Without: campaigns newest first, paged with limit and cursor (next_cursor).',
      security: [{ apiKey: [] }],
      querystring: CampaignQuerySchema,
      response: { 200: CampaignReadSchema, ...CampaignErrors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function readCampaigns (request) {
    const { query } = request
    const { workspaceId } = request.apiKey
    if (query.action !== undefined) throw invalidRequest('action is for POST', 'action')
    if (query.id !== undefined) {
      const found = await app.campaigns.get(workspaceId, query.id)
      if (!found) throw notFound('No campaign with this id in your workspace')
      return { ok: true as const, campaign: campaignView(found.campaign, found.counts) }
    }
    const limit = query.limit === undefined ? 50 : Number(query.limit)
    const after = query.cursor === undefined ? undefined : decodeCampaignCursor(query.cursor)
    const page = await app.campaigns.page(workspaceId, { limit, after }) ?? (() => { throw badCampaignCursor() })()
    const last = page.rows.at(-1)
    return { ok: true as const, campaigns: page.rows.map(row => campaignView(row.campaign, row.counts)), next_cursor: page.more && last ? encodeCampaignCursor(last.campaign.id) : null }
  })
}

export default campaignRoutes
