import { and, eq, gt, inArray, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { templateEdits, templateNameLocks, templates } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { newId } from './ids.js'
import type { Template } from './templates.js'

export interface CreatedTemplate {
  workspaceId: string
  wabaId: string
  upstreamId: string
  name: string
  language: string
  status: string
  category: string
  parameterFormat: string
  components: unknown[]
}

/** The changes Outbound makes to the catalog itself (CONTRACT.md 20): each after the upstream accepted it, with its audit entry. */
export function templateChangeStore (db: Database) {
  return {
    async created (template: CreatedTemplate, also?: AlsoInTransaction<Template>): Promise<Template> {
      const values = { ...template, rejectedReason: null, quality: null, updatedAt: new Date() }
      return (await changeWith(db, async on => {
        const [row] = await on.insert(templates).values({ id: newId('tpl'), ...values })
          .onConflictDoUpdate({ target: [templates.workspaceId, templates.name, templates.language], set: values }).returning()
        return row
      }, also))!
    },

    /** An edit: the new components (and category), the status the upstream gives it, and one edit counted when it was APPROVED. */
    async edited (before: Template, change: { components: unknown[], category: string | null, status: string }, also?: AlsoInTransaction<Template>): Promise<Template> {
      return (await changeWith(db, async on => {
        const [row] = await on.update(templates).set({ components: change.components, category: change.category, status: change.status, rejectedReason: null, updatedAt: new Date() })
          .where(eq(templates.id, before.id)).returning()
        if (before.status === 'APPROVED' && before.upstreamId) await on.insert(templateEdits).values({ wabaId: before.wabaId, upstreamId: before.upstreamId })
        return row
      }, also))!
    },

    /** Deleted upstream: the rows go, and the name is locked until `freesAt` when one of them had been approved. */
    async deleted (gone: Template[], freesAt: Date | null, also?: AlsoInTransaction<Template[]>): Promise<number> {
      if (gone.length === 0) return 0
      await changeWith(db, async on => {
        await on.delete(templates).where(inArray(templates.id, gone.map(template => template.id)))
        if (freesAt) {
          await on.insert(templateNameLocks).values({ wabaId: gone[0].wabaId, name: gone[0].name, freesAt })
            .onConflictDoUpdate({ target: [templateNameLocks.wabaId, templateNameLocks.name], set: { freesAt: sql`greatest(${templateNameLocks.freesAt}, excluded.frees_at)` } })
        }
        return gone
      }, also)
      return gone.length
    },

    /** A status read from the upstream (`apply --wait`), as a webhook would have set it. */
    async statusRead (workspaceId: string, upstreamId: string, read: { status: string, category?: string, rejectedReason: string | null }): Promise<void> {
      await db.update(templates).set({ status: read.status, ...(read.category && { category: read.category }), rejectedReason: read.rejectedReason, updatedAt: new Date() })
        .where(and(eq(templates.workspaceId, workspaceId), eq(templates.upstreamId, upstreamId)))
    },

    /** Outbound's edits of the template in the last 30 days. */
    async editsOf (wabaId: string, upstreamIds: string[]): Promise<Map<string, Date[]>> {
      const edits = new Map<string, Date[]>()
      if (upstreamIds.length === 0) return edits
      const rows = await db.select({ upstreamId: templateEdits.upstreamId, at: templateEdits.at }).from(templateEdits)
        .where(and(eq(templateEdits.wabaId, wabaId), inArray(templateEdits.upstreamId, upstreamIds), gt(templateEdits.at, sql`now() - interval '30 days'`)))
      for (const row of rows) edits.set(row.upstreamId, [...edits.get(row.upstreamId) ?? [], row.at])
      return edits
    },

    /** The WABA's names still locked, with when each frees. */
    async locks (wabaId: string, names?: string[]): Promise<Map<string, Date>> {
      const conditions = [eq(templateNameLocks.wabaId, wabaId), gt(templateNameLocks.freesAt, sql`now()`)]
      if (names) conditions.push(inArray(templateNameLocks.name, names.length > 0 ? names : ['']))
      const rows = await db.select().from(templateNameLocks).where(and(...conditions))
      return new Map(rows.map(row => [row.name, row.freesAt]))
    }
  }
}

export type TemplateChangeStore = ReturnType<typeof templateChangeStore>
