import type { workspaces } from '../../db/schema.js'

type Workspace = typeof workspaces.$inferSelect

export function publicWorkspace (workspace: Workspace) {
  return { id: workspace.id, name: workspace.name, plan: workspace.plan, read_receipts: workspace.readReceipts, created_at: workspace.createdAt.toISOString() }
}
