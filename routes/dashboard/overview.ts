import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { overviewContent } from '../../src/dashboard/views/overview.js'

const DAY_MS = 24 * 60 * 60_000

/** GET /dashboard: plan, connection state, numbers with quality, throughput and tier, recent activity. */
const overview: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/', { config: { dashboard: 'page' } }, async function showOverview (request, reply) {
    const { workspace } = request.account
    const [active, counts] = await Promise.all([
      app.connections.active(workspace.id),
      app.messageSearch.countByStatus(workspace.id, new Date(Date.now() - DAY_MS))
    ])
    return sendHtml(reply, page(request, { title: 'Overview', active: 'overview' }, overviewContent({ plan: workspace.plan, active, counts })))
  })
}

export default overview
