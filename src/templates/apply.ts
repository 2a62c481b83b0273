import { setTimeout as sleep } from 'node:timers/promises'
import type { Who } from '../access/audit.js'
import { connectionOf, createTemplate, deleteTemplates, editTemplate, type TemplateDeps } from './manage.js'
import { planTemplates, type Named, type TemplatePlan } from './plan.js'

export interface ApplyResult extends Named { action: 'create' | 'update' | 'delete', status: string, id?: string, error?: string }

const POLL_MS = 500

/** The plan of a file against the workspace's catalog, with Outbound's edit counts and locked names. */
export async function planFile (deps: Pick<TemplateDeps, 'stores' | 'cipher'>, workspaceId: string, file: unknown[], prune: boolean) {
  const { wabaId } = await connectionOf(deps, workspaceId)
  const catalog = await deps.stores.templates.list(workspaceId)
  const approved = catalog.filter(template => template.status === 'APPROVED' && template.upstreamId).map(template => template.upstreamId!)
  const [edits, locks] = await Promise.all([deps.stores.templateChanges.editsOf(wabaId, approved), deps.stores.templateChanges.locks(wabaId)])
  return planTemplates({ file, catalog, edits, locks, prune })
}

/**
 * `outbound templates apply` (CONTRACT.md 20): a file with problems is refused as plan shows it;
 * else creates, updates and (with prune) deletes in that order, then waits up to `waitSeconds`
 * while any of them is PENDING. Not ok when a call failed or a template ended REJECTED.
 */
export async function applyFile (deps: TemplateDeps, workspaceId: string, file: unknown[], options: { prune: boolean, waitSeconds?: number }, who: Who): Promise<{ ok: boolean, results: ApplyResult[] } | TemplatePlan> {
  const planned = await planFile(deps, workspaceId, file, options.prune)
  if (!planned.ok) {
    const { steps, deletions, ...shown } = planned
    return shown
  }
  const results: ApplyResult[] = []
  async function attempt (result: Omit<ApplyResult, 'status'>, action: () => Promise<{ status: string, id?: string }>): Promise<void> {
    try {
      results.push({ ...result, ...await action() })
    } catch (error) {
      results.push({ ...result, status: 'FAILED', error: (error as Error).message })
    }
  }
  for (const step of planned.steps) {
    const named = { name: String(step.draft.name), language: String(step.draft.language), action: step.action }
    await attempt(named, async () => {
      const row = step.action === 'create'
        ? await createTemplate(deps, workspaceId, step.draft, who)
        : await editTemplate(deps, workspaceId, step.catalog!.upstreamId!, { components: step.draft.components, ...(step.catalog!.status !== 'APPROVED' && { category: step.draft.category }) }, who)
      return { status: row.status, id: row.upstreamId ?? undefined }
    })
  }
  for (const template of planned.deletions) {
    await attempt({ name: template.name, language: template.language, action: 'delete' }, async () => {
      await deleteTemplates(deps, workspaceId, template.name, template.language, who)
      return { status: 'DELETED' }
    })
  }
  if (options.waitSeconds !== undefined) await waitForReviews(deps, workspaceId, results, options.waitSeconds * 1000)
  return { ok: results.every(result => result.status !== 'FAILED' && result.status !== 'REJECTED'), results: results.map(({ id, ...shown }) => shown) }
}

/** Reads each PENDING template's status upstream until none is, or the time is up; the catalog learns what was read. */
async function waitForReviews (deps: TemplateDeps, workspaceId: string, results: ApplyResult[], waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs
  const { token } = await connectionOf(deps, workspaceId)
  for (;;) {
    const pending = results.filter(result => result.status === 'PENDING' && result.id !== undefined)
    if (pending.length === 0 || Date.now() >= deadline) return
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())))
    for (const result of pending) {
      const read = await deps.upstream.templateStatus(result.id!, token).catch(() => undefined)
      if (!read || read.status === result.status) continue
      result.status = read.status
      const rejectedReason = read.status === 'REJECTED' && read.rejected_reason && read.rejected_reason !== 'NONE' ? read.rejected_reason : null
      await deps.stores.templateChanges.statusRead(workspaceId, result.id!, { status: read.status, category: read.category, rejectedReason })
    }
  }
}
