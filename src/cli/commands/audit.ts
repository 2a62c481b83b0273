import { publicAuditEntry } from '../../access/audit.js'
import { defineCommand } from '../command.js'
import { integer, optional, text } from '../flags.js'
import { existingWorkspace } from './workspace.js'

export const auditList = defineCommand({
  summary: 'lists who changed what in a workspace (keys, plan, connection, webhook endpoints, sign-ins, …), newest first',
  flags: { workspace: text('ID'), limit: optional(integer('N', 1, 1000), 50) },
  async run ({ workspace, limit }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { entries: (await runtime.stores.auditLog.page(workspace, { limit })).map(publicAuditEntry) }
  }
})
