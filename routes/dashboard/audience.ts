import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors, audit } from '../../src/access/audit.js'
import { limitsOf, usagePeriod } from '../../src/audience/reports.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { suppressionsContent, usageContent } from '../../src/dashboard/views/audience.js'
import type { DayBar } from '../../src/dashboard/views/charts.js'
import type { Suppression } from '../../src/store/suppressions.js'

const SuppressionFormSchema = Type.Object({ to: Type.String({ maxLength: 40 }), _csrf: Type.Optional(Type.String()) })
const PHONE = /^\+?[1-9][0-9]{6,14}$/
const PAGE_SIZE = 100

/** Audience → Suppressions (add and remove by hand, audited) and Usage (charts of messages per day and the messaging limit). */
const audience: FastifyPluginAsyncTypebox = async function (app) {
  async function renderSuppressions (request: FastifyRequest, reply: FastifyReply, error?: string) {
    const { workspace, session } = request.account
    const rows = await app.suppressions.list(workspace.id, { limit: PAGE_SIZE }) ?? []
    return sendHtml(reply, page(request, { title: 'Suppressions', active: 'suppressions' }, suppressionsContent({ rows, csrfToken: session.csrfToken, error })), error ? 422 : 200)
  }
  const audited = (request: FastifyRequest, action: 'suppression.added' | 'suppression.removed') =>
    audit.of(actors.account(request), action, (row: Suppression) => ({ workspaceId: request.account.workspace.id, target: { kind: 'suppression', id: row.id } }))

  app.get('/suppressions', { config: { dashboard: 'page' } }, async function listSuppressions (request, reply) {
    return await renderSuppressions(request, reply)
  })

  app.post('/suppressions', { config: { dashboard: 'page' }, schema: { body: SuppressionFormSchema } }, async function addSuppression (request, reply) {
    const to = request.body.to.trim().replace(/[\s()-]/g, '')
    if (!PHONE.test(to)) return await renderSuppressions(request, reply, 'Give a phone number: an optional +, then 7 to 15 digits.')
    await app.suppressions.add(request.account.workspace.id, to.replace(/^\+/, ''), audited(request, 'suppression.added'))
    return reply.redirect('/dashboard/suppressions', 303)
  })

  app.post('/suppressions/remove', { config: { dashboard: 'page' }, schema: { body: SuppressionFormSchema } }, async function removeSuppression (request, reply) {
    await app.suppressions.remove(request.account.workspace.id, request.body.to.replace(/^\+/, ''), audited(request, 'suppression.removed'))
    return reply.redirect('/dashboard/suppressions', 303)
  })

  app.get('/usage', { config: { dashboard: 'page' } }, async function showUsage (request, reply) {
    const workspaceId = request.account.workspace.id
    const period = usagePeriod({})
    const [counts, numbers] = await Promise.all([
      app.usage.countsByDayAndCategory(workspaceId, period.since, period.until),
      limitsOf(await app.connections.active(workspaceId), app.messagingLimit, app.config.THROUGHPUT_MPS)
    ])
    const days = new Map<string, DayBar>()
    const totals = { billable: 0, free: 0, unpriced: 0, messages: 0 }
    for (const row of counts) {
      const day = days.get(row.day) ?? { day: row.day, categories: {} }
      day.categories[row.category] = (day.categories[row.category] ?? 0) + row.messages
      days.set(row.day, day)
      totals.messages += row.messages
      totals.billable += row.billable
      totals.free += row.free
      totals.unpriced += row.unpriced
    }
    const content = usageContent({
      days: [...days.values()],
      totals,
      numbers: numbers.map(number => ({ label: number.display_phone_number, used: number.messaging_limit.used_24h, limit: number.messaging_limit.limit, tier: number.messaging_limit.tier ?? 'TIER_NOT_SET' }))
    })
    return sendHtml(reply, page(request, { title: 'Usage', active: 'usage' }, content))
  })
}

export default audience
