import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors } from '../../src/access/audit.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { relaysContent, type RelaysView } from '../../src/dashboard/views/relays.js'
import { notFound } from '../../src/errors.js'
import { addRelay, RelayInputError, removeRelay } from '../../src/relay/targets.js'

const AddRelayBodySchema = Type.Object({
  url: Type.String({ maxLength: 4096 }),
  fields: Type.Optional(Type.String({ maxLength: 2000 })),
  phone_number_ids: Type.Optional(Type.String({ maxLength: 2000 })),
  signing: Type.Optional(Type.String({ maxLength: 10 })),
  _csrf: Type.Optional(Type.String())
})
const IdParamsSchema = Type.Object({ id: Type.String({ maxLength: 100 }) })
const list = (value: string | undefined) => value?.split(',').map(item => item.trim()).filter(Boolean)

/** Developer Studio → Relays (CONTRACT.md 18): add a relay (an own secret shown once), remove it; deliveries and replay. */
const relays: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, view: Pick<RelaysView, 'created' | 'form'> = {}, status = 200) {
    const { workspace, session } = request.account
    const [targets, deliveries] = await Promise.all([app.relays.targets(workspace.id), app.relays.deliveries(workspace.id, { limit: 50 })])
    return sendHtml(reply, page(request, { title: 'Relays', active: 'relays' }, relaysContent({ ...view, relays: targets, deliveries, csrfToken: session.csrfToken })), status)
  }

  app.get('/relays', { config: { dashboard: 'page' } }, async function listRelays (request, reply) {
    return await render(request, reply)
  })

  app.post('/relays', { config: { dashboard: 'page' }, schema: { body: AddRelayBodySchema } }, async function addRelayTarget (request, reply) {
    const { url, fields = '', phone_number_ids: numbers = '', signing = 'app' } = request.body
    try {
      const created = await addRelay(app, { workspaceId: request.account.workspace.id, url: url.trim(), fields: list(fields), phoneNumberIds: list(numbers), signing }, actors.account(request))
      return await render(request, reply, { created }, 201)
    } catch (error) {
      if (!(error instanceof RelayInputError)) throw error
      return await render(request, reply, { form: { url, fields, numbers, signing, error: { field: error.field, text: error.message.replace(/^\w+: /, '') } } }, 422)
    }
  })

  app.post('/relays/:id/remove', { config: { dashboard: 'page' }, schema: { params: IdParamsSchema } }, async function removeRelayTarget (request, reply) {
    if (!await removeRelay(app.relays, actors.account(request), request.params.id, request.account.workspace.id)) throw notFound('No such relay in this workspace')
    return reply.redirect('/dashboard/relays?done=relay-removed', 303)
  })

  app.post('/relays/deliveries/:id/replay', { config: { dashboard: 'page' }, schema: { params: IdParamsSchema } }, async function replayRelayDelivery (request, reply) {
    const replayed = await app.relays.replay({ deliveryId: request.params.id, workspaceId: request.account.workspace.id })
    if (replayed === 0 && (await app.relays.delivery(request.params.id))?.workspaceId !== request.account.workspace.id) throw notFound('No such relay delivery in this workspace')
    return reply.redirect('/dashboard/relays?done=relay-replayed', 303)
  })
}

export default relays
