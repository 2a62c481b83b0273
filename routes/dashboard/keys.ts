import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors } from '../../src/access/audit.js'
import { createKey, KeyGrantError, revokeKey } from '../../src/access/keys.js'
import { SCOPES } from '../../src/access/scopes.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { keysContent, type KeysView } from '../../src/dashboard/views/keys.js'
import { notFound } from '../../src/errors.js'

const Choices = Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })]))
// scopes_shown: the form showed the scope boxes, so no scope at all means every box was unchecked (not "the default: all")
const CreateKeyBodySchema = Type.Object({
  name: Type.String({ maxLength: 200 }),
  scopes: Choices,
  scopes_shown: Type.Optional(Type.String({ maxLength: 1 })),
  phone_number_ids: Choices,
  _csrf: Type.Optional(Type.String())
})
const KeyParamsSchema = Type.Object({ id: Type.String({ maxLength: 100 }) })

/** Developer Studio → API keys: create with scopes and numbers (the secret shown once), list, revoke. */
const keys: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, view: Pick<KeysView, 'created' | 'form'> = {}, status = 200) {
    const { workspace, session } = request.account
    const [list, active] = await Promise.all([app.keys.list(workspace.id), app.connections.active(workspace.id)])
    const content = keysContent({ ...view, plan: workspace.plan, keys: list, numbers: active?.numbers ?? [], csrfToken: session.csrfToken })
    return sendHtml(reply, page(request, { title: 'API keys', active: 'keys' }, content), status)
  }

  app.get('/keys', { config: { dashboard: 'page' } }, async function listKeys (request, reply) {
    return await render(request, reply)
  })

  app.post('/keys', { config: { dashboard: 'page' }, schema: { body: CreateKeyBodySchema } }, async function createKeyFromForm (request, reply) {
    const name = request.body.name.trim()
    const scopes = request.body.scopes === undefined && !request.body.scopes_shown ? undefined : [request.body.scopes ?? []].flat()
    const phoneNumberIds = [request.body.phone_number_ids ?? []].flat()
    const again = (field: 'name' | 'scopes' | 'numbers', text: string) => render(request, reply, { form: { name, scopes: scopes ?? [...SCOPES], phoneNumberIds, error: { field, text } } }, 422)
    if (name === '' || name.length > 100) return await again('name', 'Give the key a name of 1 to 100 characters.')
    if (scopes?.length === 0) return await again('scopes', 'Choose at least one scope.')
    try {
      const created = await createKey(app, actors.account(request), { workspaceId: request.account.workspace.id, name, scopes, phoneNumberIds })
      return await render(request, reply, { created }, 201)
    } catch (error) {
      if (error instanceof KeyGrantError) return await again(error.field === 'scopes' ? 'scopes' : 'numbers', error.message)
      throw error
    }
  })

  app.post('/keys/:id/revoke', { config: { dashboard: 'page' }, schema: { params: KeyParamsSchema } }, async function revokeKeyFromForm (request, reply) {
    const key = await app.keys.get(request.params.id)
    if (!key || key.workspaceId !== request.account.workspace.id) throw notFound('No such API key in this workspace')
    await revokeKey(app, actors.account(request), key.id)
    return reply.redirect('/dashboard/keys?done=revoked', 303)
  })
}

export default keys
