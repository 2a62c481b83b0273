import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actors, audit } from '../../src/access/audit.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { campaignsContent } from '../../src/dashboard/views/campaigns.js'
import { notFound } from '../../src/errors.js'

const ACTIONS = { pause: 'campaign.paused', resume: 'campaign.resumed', cancel: 'campaign.cancelled' } as const
const REFRESH_SECONDS = 3

/** Campaigns: live progress (server-rendered; the Refresh header reloads it, no script), failure reasons, pause/resume/cancel. */
const campaigns: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/campaigns', { config: { dashboard: 'page' } }, async function showCampaigns (request, reply) {
    const workspaceId = request.account.workspace.id
    const listed = await app.campaigns.page(workspaceId, { limit: 20 })
    const rows = await Promise.all((listed?.rows ?? []).map(async row => ({ ...row, failures: await app.campaigns.failureReasons(row.campaign.id) })))
    if (rows.some(row => row.campaign.status === 'running' || row.campaign.status === 'waiting_for_limit')) reply.header('refresh', String(REFRESH_SECONDS))
    return sendHtml(reply, page(request, { title: 'Campaigns', active: 'campaigns' }, campaignsContent(rows, request.account.session.csrfToken)))
  })

  app.post('/campaigns/:id/:action', {
    config: { dashboard: 'page' },
    schema: { params: Type.Object({ id: Type.String({ pattern: '^cmp_[0-9a-z]{1,60}$' }), action: Type.Union([Type.Literal('pause'), Type.Literal('resume'), Type.Literal('cancel')]) }) }
  }, async function actOnCampaign (request, reply) {
    const { id, action } = request.params
    const acted = await app.campaigns.act(request.account.workspace.id, id, action,
      audit.of(actors.account(request), ACTIONS[action], campaign => ({ workspaceId: campaign.workspaceId, target: { kind: 'campaign', id: campaign.id } })))
    if (!acted) throw notFound('No such campaign in this workspace')
    if (action !== 'pause') app.sendQueue.wake()
    return reply.redirect('/dashboard/campaigns', 303)
  })
}

export default campaigns
