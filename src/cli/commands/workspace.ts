import { PLANS, READ_RECEIPTS } from '../../../db/schema.js'
import { actors, audit } from '../../access/audit.js'
import type { Runtime } from '../../runtime.js'
import { publicWorkspace } from '../../resources/workspace.js'
import type { Workspace } from '../../store/workspaces.js'
import { CommandError, defineCommand } from '../command.js'
import { oneOf, text } from '../flags.js'

export const workspaceCreate = defineCommand({
  summary: 'creates a workspace on a plan',
  flags: { name: text('N'), plan: oneOf('P', PLANS) },
  async run ({ name, plan }, runtime) {
    return publicWorkspace(await runtime.stores.workspaces.create(name, plan))
  }
})

export const workspacePlan = defineCommand({
  summary: 'changes a workspace\'s plan',
  flags: { workspace: text('ID'), plan: oneOf('P', PLANS) },
  async run ({ workspace, plan }, runtime) {
    const updated = await runtime.stores.workspaces.setPlan(workspace, plan,
      audit.of(actors.cli(), 'workspace.plan_changed', changed => ({ workspaceId: changed.id, target: { kind: 'workspace', id: changed.id } })))
    if (!updated) throw workspaceNotFound(workspace)
    return publicWorkspace(updated)
  }
})

export const workspaceSettings = defineCommand({
  summary: 'changes a workspace\'s settings: when inbound messages are marked read (manual, on_receipt, on_reply)',
  flags: { workspace: text('ID'), 'read-receipts': oneOf('POLICY', READ_RECEIPTS) },
  async run ({ workspace, 'read-receipts': readReceipts }, runtime) {
    const updated = await runtime.stores.workspaces.setReadReceipts(workspace, readReceipts,
      audit.of(actors.cli(), 'workspace.settings_changed', changed => ({ workspaceId: changed.id, target: { kind: 'workspace', id: changed.id } })))
    if (!updated) throw workspaceNotFound(workspace)
    return publicWorkspace(updated)
  }
})

export async function existingWorkspace (runtime: Runtime, id: string): Promise<Workspace> {
  const workspace = await runtime.stores.workspaces.get(id)
  if (!workspace) throw workspaceNotFound(id)
  return workspace
}

function workspaceNotFound (id: string): CommandError {
  return new CommandError(`workspace ${JSON.stringify(id)} not found`)
}
