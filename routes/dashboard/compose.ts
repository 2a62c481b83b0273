import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ComposeFormSchema, messageBodyOf } from '../../src/dashboard/compose-form.js'
import { html } from '../../src/dashboard/html.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import type { Notice } from '../../src/dashboard/parts.js'
import { sendFromDashboard, type DashboardSend } from '../../src/dashboard/send.js'
import { composeContent, type ComposeView } from '../../src/dashboard/views/compose.js'

/** GET/POST /dashboard/compose: text, template or media-by-link messages, on any plan. */
const compose: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, view: Pick<ComposeView, 'form' | 'result' | 'fieldAtFault'>, status = 200) {
    const { workspace, session } = request.account
    const [active, templates] = await Promise.all([app.connections.active(workspace.id), app.templates.list(workspace.id)])
    const content = composeContent({ ...view, csrfToken: session.csrfToken, numbers: active?.numbers ?? [], templates })
    return sendHtml(reply, page(request, { title: 'Send a message', active: 'compose' }, content), status)
  }

  app.get('/compose', { config: { dashboard: 'page' } }, async function composeForm (request, reply) {
    return await render(request, reply, { form: {} })
  })

  app.post('/compose', { config: { dashboard: 'page' }, schema: { body: ComposeFormSchema } }, async function sendMessage (request, reply) {
    const form = request.body
    const outcome = await sendFromDashboard(app, request, reply, messageBodyOf(form))
    if (outcome.ok) {
      return await render(request, reply, { form: { to: form.to, type: form.type, phone_number_id: form.phone_number_id }, result: outcomeNotice(outcome) })
    }
    return await render(request, reply, { form, result: outcomeNotice(outcome), fieldAtFault: outcome.error.extra.field }, outcome.error.statusCode)
  })
}

function outcomeNotice (outcome: DashboardSend): Notice {
  const follow = outcome.record && html` <a href="/dashboard/messages/${encodeURIComponent(outcome.record.id)}">Follow it in Messages</a>.`
  if (outcome.ok) return { kind: 'success', title: 'Message sent', text: html`Accepted by WhatsApp as <code>${outcome.wamid}</code>.${follow}` }
  const { error } = outcome
  const upstream = error.extra.upstream
  return {
    kind: 'error',
    title: error.statusCode === 422 ? 'The message was not sent: check the form' : `The message was not sent (${error.code})`,
    text: html`${error.message}${upstream && upstream.code !== null && html` · upstream code ${upstream.code}`}${follow}`
  }
}

export default compose
