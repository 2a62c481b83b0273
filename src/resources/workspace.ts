import type { workspaces } from '../../db/schema.js'

type Workspace = typeof workspaces.$inferSelect

export function publicWorkspace (workspace: Workspace) {
  return { id: workspace.id, name: workspace.name, plan: workspace.plan, read_receipts: workspace.readReceipts, retention_days: workspace.retentionDays, created_at: workspace.createdAt.toISOString() }
}
