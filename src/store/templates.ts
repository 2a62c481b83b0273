import { and, asc, eq, notInArray, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { templates } from '../../db/schema.js'
import type { UpstreamTemplate } from '../upstream/types.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export type Template = typeof templates.$inferSelect

/** A template webhook: a status, category or quality change for one template of a WABA. */
export interface TemplateEvent {
  wabaId: string
  templateId?: string
  name?: string
  language?: string
  /** rejectedReason: the upstream's reason with a status (null: none); absent without a status */
  change: { status?: string, category?: string, quality?: string, rejectedReason?: string | null }
}

export interface TemplateChange { id: string, workspaceId: string, name: string, language: string, status: string, category: string | null, quality: string | null, change: TemplateEvent['change'] }

/**
 * Applies one template event to every workspace connected to the WABA. The template is found by
 * the upstream's id first, then by name and language, `en-US` being `en_US`. Template events are
 * rare: one statement each.
 */
export async function applyTemplateEvent (tx: Executor, event: TemplateEvent): Promise<TemplateChange[]> {
  const language = (column: ReturnType<typeof sql>) => sql`replace(${column}, '-', '_')`
  const byName = event.name && event.language
    ? sql`(t.name = ${event.name} and ${language(sql`t.language`)} = ${language(sql`${event.language}`)})`
    : sql`false`
  const match = event.templateId
    ? sql`(t.upstream_id = ${event.templateId} or (${byName} and not exists (select 1 from templates u where u.waba_id = ${event.wabaId} and u.upstream_id = ${event.templateId})))`
    : byName
  const result = await tx.execute(sql`
    update templates t set status = coalesce(${event.change.status ?? null}, t.status), category = coalesce(${event.change.category ?? null}, t.category),
      quality = coalesce(${event.change.quality ?? null}, t.quality),
      rejected_reason = case when ${event.change.status !== undefined} then ${event.change.rejectedReason ?? null} else t.rejected_reason end, updated_at = now()
    where t.waba_id = ${event.wabaId} and ${match}
    returning t.id, t.workspace_id, t.name, t.language, t.status, t.category, t.quality`)
  return rowsOf<{ id: string, workspace_id: string, name: string, language: string, status: string, category: string | null, quality: string | null }>(result)
    .map(row => ({ id: row.id, workspaceId: row.workspace_id, name: row.name, language: row.language, status: row.status, category: row.category, quality: row.quality, change: event.change }))
}

export function templateStore (db: Database) {
  return {
    /** Makes the stored templates exactly the upstream's list for this workspace. */
    async replaceAll (workspaceId: string, wabaId: string, upstream: UpstreamTemplate[]): Promise<number> {
      return await db.transaction(async tx => {
        const kept: string[] = []
        for (const template of upstream) {
          const values = {
            wabaId, upstreamId: template.id ?? null, status: template.status, category: template.category ?? null, components: template.components ?? [],
            parameterFormat: template.parameter_format?.toUpperCase() ?? null, rejectedReason: rejectedReasonOf(template), updatedAt: new Date()
          }
          const [row] = await tx.insert(templates).values({ id: newId('tpl'), workspaceId, name: template.name, language: template.language, ...values })
            .onConflictDoUpdate({ target: [templates.workspaceId, templates.name, templates.language], set: values })
            .returning({ id: templates.id })
          kept.push(row.id)
        }
        const stale = kept.length > 0 ? and(eq(templates.workspaceId, workspaceId), notInArray(templates.id, kept)) : eq(templates.workspaceId, workspaceId)
        await tx.delete(templates).where(stale)
        return upstream.length
      })
    },

    /** One page of the catalog by name, then language, after the row `afterId` (CONTRACT.md 20). */
    async page (workspaceId: string, filters: TemplateFilters, limit: number, afterId?: string): Promise<Template[]> {
      const conditions = [eq(templates.workspaceId, workspaceId)]
      if (filters.name !== undefined) conditions.push(eq(templates.name, filters.name))
      if (filters.language !== undefined) conditions.push(eq(templates.language, filters.language))
      if (filters.status !== undefined) conditions.push(eq(templates.status, filters.status.toUpperCase()))
      if (filters.category !== undefined) conditions.push(eq(templates.category, filters.category.toUpperCase()))
      if (afterId !== undefined) conditions.push(sql`(${templates.name}, ${templates.language}) > (select a.name, a.language from templates a where a.id = ${afterId} and a.workspace_id = ${workspaceId})`)
      return await db.select().from(templates).where(and(...conditions)).orderBy(asc(templates.name), asc(templates.language)).limit(limit)
    },

    async byUpstreamId (workspaceId: string, upstreamId: string): Promise<Template | undefined> {
      const [row] = await db.select().from(templates).where(and(eq(templates.workspaceId, workspaceId), eq(templates.upstreamId, upstreamId)))
      return row
    },

    async list (workspaceId: string): Promise<Template[]> {
      return await db.select().from(templates).where(eq(templates.workspaceId, workspaceId)).orderBy(asc(templates.name), asc(templates.language))
    },

    /** Every language of one template name. */
    async byName (workspaceId: string, name: string): Promise<Template[]> {
      return await db.select().from(templates).where(and(eq(templates.workspaceId, workspaceId), eq(templates.name, name)))
    }
  }
}

export type TemplateStore = ReturnType<typeof templateStore>

export interface TemplateFilters { name?: string, language?: string, status?: string, category?: string }

function rejectedReasonOf (template: UpstreamTemplate): string | null {
  return template.status === 'REJECTED' && template.rejected_reason && template.rejected_reason !== 'NONE' ? template.rejected_reason : null
}
