import { and, eq, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { workspaces, type Plan, type ReadReceipts } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { newId } from './ids.js'
import type { ReadCache } from './read-cache.js'

export type Workspace = typeof workspaces.$inferSelect

export function workspaceStore (db: Database, cache: ReadCache) {
  return {
    async create (name: string, plan: Plan): Promise<Workspace> {
      const [row] = await db.insert(workspaces).values({ id: newId('ws'), name, plan }).returning()
      return row
    },

    async get (id: string): Promise<Workspace | undefined> {
      const [row] = await db.select().from(workspaces).where(eq(workspaces.id, id))
      return row
    },

    /** The workspace on its new plan; `also` runs only when the plan changes. */
    async setPlan (id: string, plan: Plan, also?: AlsoInTransaction<Workspace>): Promise<Workspace | undefined> {
      const changed = await changeWith(db, async on => (await on.update(workspaces).set({ plan, updatedAt: new Date() })
        .where(and(eq(workspaces.id, id), ne(workspaces.plan, plan))).returning())[0], also)
      if (!changed) return await this.get(id)
      // The plan is cached with each of the workspace's keys.
      await cache.changed()
      return changed
    },

    /** The workspace with its new read-receipt policy (CONTRACT.md 19); `also` runs only when it changes. */
    async setReadReceipts (id: string, readReceipts: ReadReceipts, also?: AlsoInTransaction<Workspace>): Promise<Workspace | undefined> {
      const changed = await changeWith(db, async on => (await on.update(workspaces).set({ readReceipts, updatedAt: new Date() })
        .where(and(eq(workspaces.id, id), ne(workspaces.readReceipts, readReceipts))).returning())[0], also)
      return changed ?? await this.get(id)
    },

    /** The workspace with its new retention (days, or null: kept); `also` runs only when it changes. */
    async setRetention (id: string, days: number | null, also?: AlsoInTransaction<Workspace>): Promise<Workspace | undefined> {
      const changed = await changeWith(db, async on => (await on.update(workspaces).set({ retentionDays: days, updatedAt: new Date() })
        .where(and(eq(workspaces.id, id), sql`${workspaces.retentionDays} is distinct from ${days}::int`)).returning())[0], also)
      return changed ?? await this.get(id)
    },

    /** The workspaces whose retention applies: id, days and how far their content is purged. */
    async withRetention (): Promise<Array<Pick<Workspace, 'id' | 'retentionDays' | 'contentPurgedThrough'>>> {
      return await db.select({ id: workspaces.id, retentionDays: workspaces.retentionDays, contentPurgedThrough: workspaces.contentPurgedThrough })
        .from(workspaces).where(isNotNull(workspaces.retentionDays)).orderBy(workspaces.id)
    },

    /** Every content created before `before` is purged (the sweep's watermark only moves forward). */
    async purgedThrough (id: string, before: Date): Promise<void> {
      await db.update(workspaces).set({ contentPurgedThrough: before })
        .where(and(eq(workspaces.id, id), or(isNull(workspaces.contentPurgedThrough), lt(workspaces.contentPurgedThrough, before))))
    }
  }
}

export type WorkspaceStore = ReturnType<typeof workspaceStore>
