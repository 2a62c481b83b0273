import type { WorkspaceStore } from '../store/workspaces.js'
import { noCounts, purgeContent, SWEEP_PAUSE, type Counts, type PurgeDeps } from './purge.js'

const DAY_MS = 24 * 60 * 60_000

/**
 * One retention sweep (CONTRACT.md 17): each workspace with a retention has its content older than
 * that purged, from where its last sweep stopped, in small batches (src/privacy/purge.ts).
 */
export async function sweepRetention (deps: PurgeDeps & { workspaces: WorkspaceStore }): Promise<{ workspaces: number, purged: Counts }> {
  const purged = noCounts()
  let swept = 0
  for (const workspace of await deps.workspaces.withRetention()) {
    const before = new Date(Date.now() - workspace.retentionDays! * DAY_MS)
    const counts = await purgeContent(deps, { workspaceId: workspace.id, before }, { from: workspace.contentPurgedThrough ?? undefined, pause: SWEEP_PAUSE })
    await deps.workspaces.purgedThrough(workspace.id, before)
    for (const [count, n] of Object.entries(counts)) purged[count as keyof Counts] += n
    if (Object.values(counts).some(n => n > 0)) swept++
  }
  return { workspaces: swept, purged }
}
