import { and, desc, eq, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { erasures, type ErasureRecord } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export type { ErasureRecord }

/** The erasures of a workspace (CONTRACT.md 17): asked for, then completed with their counts. */
export function erasureStore (db: Database) {
  return {
    /** `target` arrives encrypted; `also` enqueues its work and audits it, in the same transaction. */
    async create (workspaceId: string, target: string, also?: AlsoInTransaction<ErasureRecord>): Promise<ErasureRecord> {
      const row = await changeWith(db, async on => (await on.insert(erasures).values({ id: newId('era'), workspaceId, status: 'pending', target }).returning())[0], also)
      return row!
    },

    async get (id: string, workspaceId?: string): Promise<ErasureRecord | undefined> {
      const [row] = await db.select().from(erasures).where(and(eq(erasures.id, id), workspaceId === undefined ? undefined : eq(erasures.workspaceId, workspaceId)))
      return row
    },

    /** Newest first, `limit` at a time after the erasure `afterId` (undefined when it is not the workspace's). */
    async list (workspaceId: string, options: { limit: number, afterId?: string }): Promise<ErasureRecord[] | undefined> {
      let after: SQL | undefined
      if (options.afterId !== undefined) {
        const [anchor] = await db.select({ at: sql<string>`${erasures.requestedAt}::text`, id: erasures.id }).from(erasures)
          .where(and(eq(erasures.id, options.afterId), eq(erasures.workspaceId, workspaceId)))
        if (!anchor) return undefined
        after = sql`(${erasures.requestedAt}, ${erasures.id}) < (${anchor.at}::timestamptz, ${anchor.id})`
      }
      return await db.select().from(erasures).where(and(eq(erasures.workspaceId, workspaceId), after))
        .orderBy(desc(erasures.requestedAt), desc(erasures.id)).limit(options.limit)
    },

    /** Completed in `tx` (with its event and audit entry): the counts kept, the target forgotten. */
    async complete (tx: Executor & Pick<Database, 'update'>, id: string, counts: Record<string, number>): Promise<ErasureRecord | undefined> {
      const [row] = await tx.update(erasures).set({ status: 'completed', counts, target: null, completedAt: new Date() })
        .where(and(eq(erasures.id, id), eq(erasures.status, 'pending'))).returning()
      return row
    }
  }
}

export type ErasureStore = ReturnType<typeof erasureStore>
