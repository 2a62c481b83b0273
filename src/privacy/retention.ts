import { audit, type Who } from '../access/audit.js'
import type { Workspace, WorkspaceStore } from '../store/workspaces.js'

const MAX_DAYS = 3650

/**
 * A retention as a person types it (CONTRACT.md 17): 1 to 3650 days, or `forEver` (the CLI's
 * `none`, the dashboard's empty field) for null, content kept; undefined when it is neither.
 */
export function retentionDaysOf (typed: string, forEver: string): number | null | undefined {
  if (typed === forEver) return null
  const days = /^\d+$/.test(typed) ? Number(typed) : NaN
  return days >= 1 && days <= MAX_DAYS ? days : undefined
}

/** Sets the workspace's retention, audited `workspace.retention_changed` when it changes; the workspace as it is then. */
export async function changeRetention (workspaces: WorkspaceStore, who: Who, workspaceId: string, days: number | null): Promise<Workspace | undefined> {
  return await workspaces.setRetention(workspaceId, days,
    audit.of(who, 'workspace.retention_changed', changed => ({ workspaceId: changed.id, target: { kind: 'workspace', id: changed.id } })))
}
