import { actors, audit } from '../../access/audit.js'
import type { Suppression } from '../../store/suppressions.js'
import { CommandError, defineCommand } from '../command.js'
import { integer, optional, text, UsageError } from '../flags.js'
import { existingWorkspace } from './workspace.js'

const view = (row: Suppression) => ({ to: row.recipient, reason: row.reason, created_at: row.createdAt.toISOString() })

function recipient (to: string): string {
  if (!/^\+?[1-9][0-9]{6,14}$/.test(to)) throw new UsageError('--to must be a phone number: an optional +, then 7 to 15 digits')
  return to.replace(/^\+/, '')
}

export const suppressionsList = defineCommand({
  summary: 'lists the recipients MARKETING templates are not sent to, newest first',
  flags: { workspace: text('ID'), to: optional(text('N')), limit: optional(integer('N', 1, 1000), 100) },
  async run ({ workspace, to, limit }, runtime) {
    await existingWorkspace(runtime, workspace)
    const rows = await runtime.stores.suppressions.list(workspace, { to: to === undefined ? undefined : recipient(to), limit }) ?? []
    return { suppressions: rows.map(view) }
  }
})

export const suppressionsAdd = defineCommand({
  summary: 'adds a recipient to the suppression list (audited)',
  flags: { workspace: text('ID'), to: text('N') },
  async run ({ workspace, to }, runtime) {
    await existingWorkspace(runtime, workspace)
    const audited = audit.of(actors.cli(), 'suppression.added', (row: Suppression) => ({ workspaceId: workspace, target: { kind: 'suppression', id: row.id } }))
    const { suppression } = await runtime.stores.suppressions.add(workspace, recipient(to), audited)
    return { ok: true, suppression: view(suppression) }
  }
})

export const suppressionsRemove = defineCommand({
  summary: 'removes a recipient from the suppression list (audited)',
  flags: { workspace: text('ID'), to: text('N') },
  async run ({ workspace, to }, runtime) {
    await existingWorkspace(runtime, workspace)
    const audited = audit.of(actors.cli(), 'suppression.removed', (row: Suppression) => ({ workspaceId: workspace, target: { kind: 'suppression', id: row.id } }))
    if (!await runtime.stores.suppressions.remove(workspace, recipient(to), audited)) throw new CommandError('This recipient is not on the suppression list')
    return { ok: true }
  }
})
