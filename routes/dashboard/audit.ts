import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { auditContent } from '../../src/dashboard/views/audit.js'

const PAGE_SIZE = 50
const AuditQuerySchema = Type.Object({ before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,14}$' })) })

/** Settings → Audit log: who changed what in the workspace, newest first, a page at a time. */
const audit: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/audit', { config: { dashboard: 'page' }, schema: { querystring: AuditQuerySchema } }, async function showAuditLog (request, reply) {
    const workspaceId = request.account.workspace.id
    const before = request.query.before === undefined ? undefined : Number(request.query.before)
    const [entries, keys, userEmails] = await Promise.all([
      app.auditLog.page(workspaceId, { limit: PAGE_SIZE, before }),
      app.keys.list(workspaceId),
      app.users.emailsIn(workspaceId)
    ])
    const content = auditContent({
      entries,
      keyNames: new Map(keys.map(key => [key.id, key.name])),
      userEmails,
      olderThan: entries.length === PAGE_SIZE ? entries[entries.length - 1].id : undefined,
      paged: before !== undefined
    })
    return sendHtml(reply, page(request, { title: 'Audit log', active: 'audit' }, content))
  })
}

export default audit
