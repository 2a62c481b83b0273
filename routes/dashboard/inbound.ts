import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { INLINE_IMAGE_TYPES } from '../../src/dashboard/views/inbound-media.js'
import { notFound } from '../../src/errors.js'
import { downloadHeaders } from '../../src/media/download.js'
import { inboundContent } from '../../src/dashboard/views/inbound.js'

/** GET /dashboard/inbound: what people sent to the workspace's numbers, their files included (CONTRACT.md 13). */
const inbound: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/inbound', { config: { dashboard: 'page' } }, async function listInbound (request, reply) {
    const workspaceId = request.account.workspace.id
    const [messages, active] = await Promise.all([app.inbound.list(workspaceId, { limit: 100 }), app.connections.active(workspaceId)])
    const numbers = new Map((active?.numbers ?? []).map(number => [number.phoneNumberId, number.displayPhoneNumber]))
    const media = new Map((await app.media.ofInbound(workspaceId, messages.map(message => message.id))).map(row => [row.inboundMessageId!, row]))
    return sendHtml(reply, page(request, { title: 'Inbound messages', active: 'inbound' }, inboundContent({ messages, numbers, media })))
  })

  // A file a customer sent, through the session (never an API key): an image inline for the list, anything as a download.
  app.get<{ Params: { id: string }, Querystring: { download?: string } }>('/inbound/media/:id', { config: { dashboard: 'page' } }, async function inboundFile (request, reply) {
    const row = await app.media.find(request.account.workspace.id, request.params.id)
    if (!row || row.origin !== 'inbound') throw notFound('No such file in your workspace')
    const file = await app.mediaFiles.open(row)
    const inline = request.query.download === undefined && row.kind === 'image' && INLINE_IMAGE_TYPES.has(file.mimeType)
    return await reply.headers(downloadHeaders(file, inline ? 'inline' : 'attachment')).header('cache-control', 'private, max-age=3600').send(file.stream)
  })
}

export default inbound
