import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { syncWorkspaceTemplates } from '../../src/connections/connect.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import type { Notice } from '../../src/dashboard/parts.js'
import { templatesContent } from '../../src/dashboard/views/templates.js'
import { UpstreamError } from '../../src/upstream/errors.js'

/** GET /dashboard/templates and the sync button: the same sync as `outbound templates sync`. */
const templates: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, error?: Notice, status = 200) {
    const { workspace, session } = request.account
    const [list, active] = await Promise.all([app.templates.list(workspace.id), app.connections.active(workspace.id)])
    const content = templatesContent({ templates: list, connected: active !== undefined, csrfToken: session.csrfToken, error })
    return sendHtml(reply, page(request, { title: 'Templates', active: 'templates' }, content), status)
  }

  app.get('/templates', { config: { dashboard: 'page' } }, async function listTemplates (request, reply) {
    return await render(request, reply)
  })

  app.post('/templates/sync', { config: { dashboard: 'page' } }, async function syncTemplates (request, reply) {
    try {
      await syncWorkspaceTemplates(app.connectDeps, request.account.workspace.id)
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      const code = error.details.code !== undefined ? ` (code ${error.details.code})` : ''
      return await render(request, reply, { kind: 'error', title: 'WhatsApp refused the sync', text: `${error.message}${code}` }, 502)
    }
    return reply.redirect('/dashboard/templates?done=synced', 303)
  })
}

export default templates
