import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors } from '../../src/access/audit.js'
import { suppressionTarget } from '../../src/audience/suppression-target.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { privacyContent, type PrivacyView } from '../../src/dashboard/views/privacy.js'
import { changeRetention, retentionDaysOf } from '../../src/privacy/retention.js'

const RetentionFormSchema = Type.Object({ _csrf: Type.Optional(Type.String()), days: Type.String({ maxLength: 20 }) })
const ErasureFormSchema = Type.Object({ _csrf: Type.Optional(Type.String()), person: Type.String({ maxLength: 200 }), confirm: Type.Optional(Type.String({ maxLength: 10 })) })
const ERASURES_SHOWN = 50

/** A user id looks like `US.1349…` (CONTRACT.md 16); anything else is taken for a phone number. */
export const personTarget = (typed: string) => suppressionTarget(/^[A-Z]{2}\./.test(typed) ? { recipient: typed } : { to: typed }, true)!

/** Settings → Privacy (CONTRACT.md 17): the workspace's retention, and erasing one person, as the CLI and the API do. */
const privacy: FastifyPluginAsyncTypebox = async function (app) {
  async function render (request: FastifyRequest, reply: FastifyReply, form?: PrivacyView['form']) {
    const { workspace, session } = request.account
    const [current, erasures] = await Promise.all([app.workspaces.get(workspace.id), app.erasures.list(workspace.id, { limit: ERASURES_SHOWN })])
    const content = privacyContent({ retentionDays: current?.retentionDays ?? null, erasures: erasures ?? [], csrfToken: session.csrfToken, form })
    return sendHtml(reply, page(request, { title: 'Privacy', active: 'privacy' }, content), form ? 422 : 200)
  }

  app.get('/privacy', { config: { dashboard: 'page' } }, async function showPrivacy (request, reply) {
    return await render(request, reply)
  })

  app.post('/privacy/retention', { config: { dashboard: 'page' }, schema: { body: RetentionFormSchema } }, async function saveRetention (request, reply) {
    const typed = request.body.days.trim()
    const days = retentionDaysOf(typed, '')
    if (days === undefined) return await render(request, reply, { name: 'days', value: typed, error: 'A number of days from 1 to 3650, or empty to keep content for ever.' })
    await changeRetention(app.workspaces, actors.account(request), request.account.workspace.id, days)
    return await reply.redirect('/dashboard/privacy?done=retention-saved', 303)
  })

  app.post('/privacy/erasures', { config: { dashboard: 'page' }, schema: { body: ErasureFormSchema } }, async function erasePerson (request, reply) {
    const typed = request.body.person.trim()
    const target = personTarget(typed)
    if ('problem' in target) return await render(request, reply, { name: 'person', value: typed, error: 'A phone number (an optional +, then 7 to 15 digits) or a user id (two capital letters, a dot, then letters and digits).' })
    if (request.body.confirm !== 'yes') return await render(request, reply, { name: 'person', value: typed, error: 'Tick the box to confirm: an erasure cannot be undone.' })
    await app.privacy.requestErasure({ workspaceId: request.account.workspace.id, recipient: target.recipient, who: actors.account(request) })
    return await reply.redirect('/dashboard/privacy?done=erasure-requested', 303)
  })
}

export default privacy
