import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { keysContent, type KeysView } from '../../src/dashboard/views/keys.js'
import { notFound } from '../../src/errors.js'

const CreateKeyBodySchema = Type.Object({ name: Type.String({ maxLength: 200 }), _csrf: Type.Optional(Type.String()) })
const KeyParamsSchema = Type.Object({ id: Type.String({ maxLength: 100 }) })

/** Developer Studio → API keys: create (the secret shown once), list, revoke. */
const keys: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, view: Pick<KeysView, 'created' | 'nameError' | 'name'> = {}, status = 200) {
    const { workspace, session } = request.account
    const content = keysContent({ ...view, plan: workspace.plan, keys: await app.keys.list(workspace.id), csrfToken: session.csrfToken })
    return sendHtml(reply, page(request, { title: 'API keys', active: 'keys' }, content), status)
  }

  app.get('/keys', { config: { dashboard: 'page' } }, async function listKeys (request, reply) {
    return await render(request, reply)
  })

  app.post('/keys', { config: { dashboard: 'page' }, schema: { body: CreateKeyBodySchema } }, async function createKey (request, reply) {
    const name = request.body.name.trim()
    if (name === '' || name.length > 100) return await render(request, reply, { name, nameError: 'Give the key a name of 1 to 100 characters.' }, 422)
    const created = await app.keys.create(request.account.workspace.id, name)
    return await render(request, reply, { created }, 201)
  })

  app.post('/keys/:id/revoke', { config: { dashboard: 'page' }, schema: { params: KeyParamsSchema } }, async function revokeKey (request, reply) {
    const key = await app.keys.get(request.params.id)
    if (!key || key.workspaceId !== request.account.workspace.id) throw notFound('No such API key in this workspace')
    await app.keys.revoke(key.id)
    return reply.redirect('/dashboard/keys?done=revoked', 303)
  })
}

export default keys
