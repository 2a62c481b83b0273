import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors } from '../../src/access/audit.js'
import { connectWorkspace, disconnectWorkspace } from '../../src/connections/connect.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { connectionContent, type ConnectionView } from '../../src/dashboard/views/connection.js'
import { AppError } from '../../src/errors.js'
import { UpstreamError } from '../../src/upstream/errors.js'

const ConnectBodySchema = Type.Object({
  waba_id: Type.String({ maxLength: 64 }),
  access_token: Type.String({ maxLength: 4096 }),
  _csrf: Type.Optional(Type.String())
})

/** Connect, replace and disconnect a WhatsApp Business Account: the same service as `outbound connect`. */
const connection: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, view: Omit<ConnectionView, 'active' | 'csrfToken'> = {}, status = 200) {
    const { workspace, session } = request.account
    const active = await app.connections.active(workspace.id)
    return sendHtml(reply, page(request, { title: 'Connection', active: 'connection' }, connectionContent({ ...view, active, csrfToken: session.csrfToken })), status)
  }

  app.get('/connection', { config: { dashboard: 'page' } }, async function showConnection (request, reply) {
    return await render(request, reply)
  })

  app.post('/connection', { config: { dashboard: 'page' }, schema: { body: ConnectBodySchema } }, async function connect (request, reply) {
    const wabaId = request.body.waba_id.trim()
    const accessToken = request.body.access_token.trim()
    if (!/^\d{1,64}$/.test(wabaId)) return await render(request, reply, { wabaId, fieldError: { waba_id: 'Enter the account ID: digits only.' } }, 422)
    if (accessToken === '') return await render(request, reply, { wabaId, fieldError: { access_token: 'Enter the access token.' } }, 422)
    try {
      const result = await connectWorkspace(app.connectDeps, { workspaceId: request.account.workspace.id, wabaId, accessToken }, actors.account(request))
      return reply.redirect(`/dashboard/connection?done=${result.webhook_registered ? 'connected' : 'connected-webhook-pending'}`, 303)
    } catch (error) {
      if (error instanceof UpstreamError) {
        const code = error.details.code !== undefined ? ` (code ${error.details.code})` : ''
        return await render(request, reply, { wabaId, error: { kind: 'error', title: 'WhatsApp refused the connection', text: `${error.message}${code}` } }, 502)
      }
      if (error instanceof AppError) return await render(request, reply, { wabaId, error: { kind: 'error', text: error.message } }, error.statusCode)
      throw error
    }
  })

  app.post('/disconnect', { config: { dashboard: 'page' } }, async function disconnect (request, reply) {
    await disconnectWorkspace(app.connectDeps, request.account.workspace.id, actors.account(request))
    return reply.redirect('/dashboard/connection?done=disconnected', 303)
  })
}

export default connection
