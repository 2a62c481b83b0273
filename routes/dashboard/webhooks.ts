import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { deliveryContent } from '../../src/dashboard/views/delivery.js'
import { webhooksContent, type WebhooksView } from '../../src/dashboard/views/webhooks.js'
import { actors } from '../../src/access/audit.js'
import { addEndpoint, ForbiddenTargetError, removeEndpoint } from '../../src/events/endpoints.js'
import { sendTestEvent } from '../../src/events/test-event.js'
import { notFound } from '../../src/errors.js'

const AddEndpointBodySchema = Type.Object({
  url: Type.String({ maxLength: 4096 }),
  events: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })])),
  _csrf: Type.Optional(Type.String())
})
const IdParamsSchema = Type.Object({ id: Type.String({ maxLength: 100 }) })

/** Developer Studio → Webhooks: add an endpoint (the secret shown once), test it, remove it; deliveries, one delivery's attempts and body, and replay. */
const webhooks: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, view: Pick<WebhooksView, 'created' | 'url' | 'urlError'> = {}, status = 200) {
    const { workspace, session } = request.account
    const [endpoints, deliveries] = await Promise.all([app.webhooks.endpoints(workspace.id), app.webhooks.deliveries(workspace.id, { limit: 50 })])
    const deliveryEndpoints = new Map((await app.webhooks.endpointsByIds(deliveries.map(delivery => delivery.endpointId))).map(endpoint => [endpoint.id, endpoint]))
    return sendHtml(reply, page(request, { title: 'Webhooks', active: 'webhooks' }, webhooksContent({ ...view, endpoints, deliveries, deliveryEndpoints, csrfToken: session.csrfToken })), status)
  }

  async function ownEndpoint (request: FastifyRequest, id: string) {
    const endpoint = await app.webhooks.endpoint(id)
    if (!endpoint || endpoint.workspaceId !== request.account.workspace.id || endpoint.removedAt) throw notFound('No such webhook endpoint in this workspace')
    return endpoint
  }

  app.get('/webhooks', { config: { dashboard: 'page' } }, async function listWebhooks (request, reply) {
    return await render(request, reply)
  })

  app.post('/webhooks', { config: { dashboard: 'page' }, schema: { body: AddEndpointBodySchema } }, async function addWebhook (request, reply) {
    const url = request.body.url.trim()
    const events = [request.body.events ?? []].flat()
    if (events.length === 0) return await render(request, reply, { url, urlError: 'Choose at least one event.' }, 422)
    try {
      const created = await addEndpoint(app, { workspaceId: request.account.workspace.id, url, events }, actors.account(request))
      return await render(request, reply, { created }, 201)
    } catch (error) {
      if (error instanceof ForbiddenTargetError) return await render(request, reply, { url, urlError: error.message.replace(/^\w+: /, 'The URL ') }, 422)
      throw error
    }
  })

  app.post('/webhooks/:id/test', { config: { dashboard: 'page' }, schema: { params: IdParamsSchema } }, async function testWebhook (request, reply) {
    const endpoint = await ownEndpoint(request, request.params.id)
    await sendTestEvent(app, endpoint.workspaceId, endpoint.id)
    return reply.redirect('/dashboard/webhooks?done=test-sent', 303)
  })

  app.post('/webhooks/:id/remove', { config: { dashboard: 'page' }, schema: { params: IdParamsSchema } }, async function removeWebhook (request, reply) {
    const endpoint = await ownEndpoint(request, request.params.id)
    await removeEndpoint(app.webhooks, actors.account(request), endpoint.id, endpoint.workspaceId)
    return reply.redirect('/dashboard/webhooks?done=endpoint-removed', 303)
  })

  app.get('/webhooks/deliveries/:id', { config: { dashboard: 'page' }, schema: { params: IdParamsSchema } }, async function showDelivery (request, reply) {
    const delivery = await app.webhooks.delivery(request.params.id)
    if (delivery?.workspaceId !== request.account.workspace.id) throw notFound('No such delivery in this workspace')
    const [endpoint, attempts] = await Promise.all([app.webhooks.endpoint(delivery.endpointId), app.webhooks.attempts(delivery.id)])
    const content = deliveryContent({ delivery, endpoint, attempts, csrfToken: request.account.session.csrfToken })
    return sendHtml(reply, page(request, { title: 'Delivery', active: 'webhooks' }, content))
  })

  app.post('/webhooks/deliveries/:id/replay', { config: { dashboard: 'page' }, schema: { params: IdParamsSchema } }, async function replayDelivery (request, reply) {
    const replayed = await app.webhooks.replay({ deliveryId: request.params.id, workspaceId: request.account.workspace.id })
    if (replayed === 0 && (await app.webhooks.delivery(request.params.id))?.workspaceId !== request.account.workspace.id) throw notFound('No such delivery in this workspace')
    return reply.redirect('/dashboard/webhooks?done=replayed', 303)
  })
}

export default webhooks
