import { and, desc, eq, lt } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { auditLog } from '../../db/schema.js'

export type AuditRow = typeof auditLog.$inferSelect
export type NewAuditRow = Omit<typeof auditLog.$inferInsert, 'id' | 'at'>

/**
 * Appends one entry, in the caller's transaction (the change it records). There is deliberately no
 * update or delete here, and the table's trigger refuses both.
 */
export async function appendAuditRow (tx: Pick<Database, 'insert'>, row: NewAuditRow): Promise<void> {
  await tx.insert(auditLog).values(row)
}

/** Reading the audit log: a workspace's entries, newest first. */
export function auditLogStore (db: Database) {
  return {
    /** Up to `limit` entries older than the entry `before` (an id from an earlier page), newest first. */
    async page (workspaceId: string, options: { limit: number, before?: number }): Promise<AuditRow[]> {
      const where = [eq(auditLog.workspaceId, workspaceId)]
      if (options.before !== undefined) where.push(lt(auditLog.id, options.before))
      return await db.select().from(auditLog).where(and(...where)).orderBy(desc(auditLog.id)).limit(options.limit)
    }
  }
}

export type AuditLogStore = ReturnType<typeof auditLogStore>
