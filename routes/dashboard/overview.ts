import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { overviewContent } from '../../src/dashboard/views/overview.js'
import { numberQueues } from '../../src/dashboard/views/queue.js'

const DAY_MS = 24 * 60 * 60_000

/** GET /dashboard: plan, connection state, numbers with quality, throughput and tier, recent activity, queued sends per number. */
const overview: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/', { config: { dashboard: 'page' } }, async function showOverview (request, reply) {
    const { workspace, session } = request.account
    const [active, counts, depths] = await Promise.all([
      app.connections.active(workspace.id),
      app.messageSearch.countReached(workspace.id, new Date(Date.now() - DAY_MS)),
      app.queuedSends.depths(workspace.id)
    ])
    const queues = numberQueues(depths, active?.numbers ?? [], app.config.THROUGHPUT_MPS)
    return sendHtml(reply, page(request, { title: 'Overview', active: 'overview' }, overviewContent({ plan: workspace.plan, active, counts, queues, csrfToken: session.csrfToken })))
  })
}

export default overview
