import { actors, audit } from '../../access/audit.js'
import { suppressionTarget, suppressionView as view } from '../../audience/suppression-target.js'
import type { Suppression } from '../../store/suppressions.js'
import { CommandError, defineCommand } from '../command.js'
import { integer, optional, text, UsageError } from '../flags.js'
import { existingWorkspace } from './workspace.js'

/** --to (a phone number) or --recipient (a business-scoped user id), as the API takes them. */
export function recipientOf (given: { to?: string, recipient?: string }, required: true): string
export function recipientOf (given: { to?: string, recipient?: string }, required: false): string | undefined
export function recipientOf (given: { to?: string, recipient?: string }, required: boolean): string | undefined {
  const target = suppressionTarget(given, required)
  if (target && 'problem' in target) throw new UsageError(target.problem)
  return target?.recipient
}

export const suppressionsList = defineCommand({
  summary: 'lists the recipients MARKETING templates are not sent to, newest first',
  flags: { workspace: text('ID'), to: optional(text('N')), recipient: optional(text('USER_ID')), limit: optional(integer('N', 1, 1000), 100) },
  async run ({ workspace, to, recipient, limit }, runtime) {
    await existingWorkspace(runtime, workspace)
    const rows = await runtime.stores.suppressions.list(workspace, { to: recipientOf({ to, recipient }, false), limit }) ?? []
    return { suppressions: rows.map(view) }
  }
})

export const suppressionsAdd = defineCommand({
  summary: 'adds a recipient to the suppression list (audited)',
  flags: { workspace: text('ID'), to: optional(text('N')), recipient: optional(text('USER_ID')) },
  async run ({ workspace, to, recipient }, runtime) {
    await existingWorkspace(runtime, workspace)
    const audited = audit.of(actors.cli(), 'suppression.added', (row: Suppression) => ({ workspaceId: workspace, target: { kind: 'suppression', id: row.id } }))
    const { suppression } = await runtime.stores.suppressions.add(workspace, recipientOf({ to, recipient }, true), audited)
    return { ok: true, suppression: view(suppression) }
  }
})

export const suppressionsRemove = defineCommand({
  summary: 'removes a recipient from the suppression list (audited)',
  flags: { workspace: text('ID'), to: optional(text('N')), recipient: optional(text('USER_ID')) },
  async run ({ workspace, to, recipient }, runtime) {
    await existingWorkspace(runtime, workspace)
    const audited = audit.of(actors.cli(), 'suppression.removed', (row: Suppression) => ({ workspaceId: workspace, target: { kind: 'suppression', id: row.id } }))
    if (!await runtime.stores.suppressions.remove(workspace, recipientOf({ to, recipient }, true), audited)) throw new CommandError('This recipient is not on the suppression list')
    return { ok: true }
  }
})
