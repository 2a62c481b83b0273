import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { inboundContent } from '../../src/dashboard/views/inbound.js'

/** GET /dashboard/inbound: what people sent to the workspace's numbers. */
const inbound: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/inbound', { config: { dashboard: 'page' } }, async function listInbound (request, reply) {
    const workspaceId = request.account.workspace.id
    const [messages, active] = await Promise.all([app.inbound.list(workspaceId, { limit: 100 }), app.connections.active(workspaceId)])
    const numbers = new Map((active?.numbers ?? []).map(number => [number.phoneNumberId, number.displayPhoneNumber]))
    return sendHtml(reply, page(request, { title: 'Inbound messages', active: 'inbound' }, inboundContent({ messages, numbers })))
  })
}

export default inbound
