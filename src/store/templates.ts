import { and, asc, eq, notInArray } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { templates } from '../../db/schema.js'
import type { UpstreamTemplate } from '../upstream/types.js'
import { emitEvents, outboxCommitted } from '../events/outbox.js'
import { templateEvent } from '../events/resources.js'
import { newId } from './ids.js'

export type Template = typeof templates.$inferSelect

export function templateStore (db: Database) {
  return {
    /** Makes the stored templates exactly the upstream's list for this workspace. */
    async replaceAll (workspaceId: string, wabaId: string, upstream: UpstreamTemplate[]): Promise<number> {
      return await db.transaction(async tx => {
        const kept: string[] = []
        for (const template of upstream) {
          const values = { wabaId, upstreamId: template.id ?? null, status: template.status, category: template.category ?? null, components: template.components ?? [], updatedAt: new Date() }
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

    async list (workspaceId: string): Promise<Template[]> {
      return await db.select().from(templates).where(eq(templates.workspaceId, workspaceId)).orderBy(asc(templates.name), asc(templates.language))
    },

    /** Every language of one template name. */
    async byName (workspaceId: string, name: string): Promise<Template[]> {
      return await db.select().from(templates).where(and(eq(templates.workspaceId, workspaceId), eq(templates.name, name)))
    },

    /** A status update from the upstream, routed by WABA: every workspace connected to it sees it. */
    async setStatus (wabaId: string, name: string, language: string, status: string): Promise<number> {
      const rows = await db.transaction(async tx => {
        const updated = await tx.update(templates).set({ status, updatedAt: new Date() })
          .where(and(eq(templates.wabaId, wabaId), eq(templates.name, name), eq(templates.language, language))).returning()
        await emitEvents(tx, updated.map(templateEvent))
        return updated
      })
      if (rows.length > 0) outboxCommitted()
      return rows.length
    }
  }
}

export type TemplateStore = ReturnType<typeof templateStore>
