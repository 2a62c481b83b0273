import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { cooldowns, suppressions, type SuppressionReason } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export type Suppression = typeof suppressions.$inferSelect

/** Why a recipient may not get a MARKETING template now, or nothing. */
export interface Blocked { suppressed: boolean, coolingDownUntil: Date | null }

export interface NewSuppression { workspaceId: string, recipient: string, reason: SuppressionReason }

/**
 * Adds recipients to their workspace's suppression list (one statement for any number); a recipient
 * already listed keeps its first reason. Used inside the webhook intake's transaction as well.
 */
export async function suppress (on: Executor, rows: NewSuppression[]): Promise<void> {
  if (rows.length === 0) return
  const json = JSON.stringify(rows.map(row => ({ id: newId('sup'), workspace_id: row.workspaceId, recipient: row.recipient, reason: row.reason })))
  await on.execute(sql`insert into suppressions (id, workspace_id, recipient, reason)
    select v.id, v.workspace_id, v.recipient, v.reason from json_to_recordset(${json}::json) as v(id text, workspace_id text, recipient text, reason text)
    on conflict do nothing`)
}

/** Removes recipients from the list (a `resume` preference). */
export async function unsuppress (on: Executor, rows: Array<{ workspaceId: string, recipient: string }>): Promise<void> {
  if (rows.length === 0) return
  const json = JSON.stringify(rows.map(row => ({ workspace_id: row.workspaceId, recipient: row.recipient })))
  await on.execute(sql`delete from suppressions s using json_to_recordset(${json}::json) as v(workspace_id text, recipient text)
    where s.workspace_id = v.workspace_id and s.recipient = v.recipient`)
}

/** Upstream 131049: MARKETING templates to the recipient wait until `until` (a later cooldown wins). */
export async function coolDown (on: Executor, rows: Array<{ workspaceId: string, recipient: string, until: Date }>): Promise<void> {
  if (rows.length === 0) return
  const json = JSON.stringify(rows.map(row => ({ workspace_id: row.workspaceId, recipient: row.recipient, until: row.until.toISOString() })))
  await on.execute(sql`insert into cooldowns (workspace_id, recipient, until)
    select v.workspace_id, v.recipient, max(v.until) from json_to_recordset(${json}::json) as v(workspace_id text, recipient text, until timestamptz)
    group by v.workspace_id, v.recipient
    on conflict (workspace_id, recipient) do update set until = greatest(cooldowns.until, excluded.until)`)
}

export function suppressionStore (db: Database) {
  return {
    /** Whether the recipient is suppressed (as given, or as `erasedAs`: an erased person's HMAC) or cooling down: one statement, both primary keys. */
    async blocked (workspaceId: string, recipient: string, erasedAs?: string): Promise<Blocked> {
      const result = await db.execute(sql`select
        exists (select 1 from suppressions where workspace_id = ${workspaceId} and recipient in (${recipient}, ${erasedAs ?? recipient})) as suppressed,
        (select until from cooldowns where workspace_id = ${workspaceId} and recipient = ${recipient} and until > now()) as until`)
      const [row] = rowsOf<{ suppressed: boolean, until: string | Date | null }>(result)
      return { suppressed: row.suppressed, coolingDownUntil: row.until === null ? null : new Date(row.until) }
    },

    /** Which of these recipients are suppressed: one statement for a whole campaign's list (in chunks). */
    async suppressedAmong (workspaceId: string, recipients: string[], erasedAs?: (recipient: string) => string): Promise<Set<string>> {
      const found = new Set<string>()
      for (let start = 0; start < recipients.length; start += 10_000) {
        const chunk = recipients.slice(start, start + 10_000)
        const asked = new Map(chunk.map(recipient => [recipient, recipient]))
        if (erasedAs) for (const recipient of chunk) asked.set(erasedAs(recipient), recipient)
        const rows = await db.select({ recipient: suppressions.recipient }).from(suppressions)
          .where(and(eq(suppressions.workspaceId, workspaceId), inArray(suppressions.recipient, [...asked.keys()])))
        for (const row of rows) found.add(asked.get(row.recipient)!)
      }
      return found
    },

    /** Newest first, `limit` at a time after the entry `afterId` (a `sup_…` id; undefined when it is not the workspace's). */
    async list (workspaceId: string, options: { to?: string, limit: number, afterId?: string }): Promise<Suppression[] | undefined> {
      let after: SQL | undefined
      if (options.afterId !== undefined) {
        // the anchor's time as text: a Date would drop the database's microseconds
        const [anchor] = await db.select({ at: sql<string>`${suppressions.createdAt}::text`, recipient: suppressions.recipient }).from(suppressions)
          .where(and(eq(suppressions.id, options.afterId), eq(suppressions.workspaceId, workspaceId)))
        if (!anchor) return undefined
        after = sql`(${suppressions.createdAt}, ${suppressions.recipient}) < (${anchor.at}::timestamptz, ${anchor.recipient})`
      }
      return await db.select().from(suppressions).where(and(
        eq(suppressions.workspaceId, workspaceId),
        options.to === undefined ? undefined : eq(suppressions.recipient, options.to),
        after
      )).orderBy(desc(suppressions.createdAt), desc(suppressions.recipient)).limit(options.limit)
    },

    /** A manual entry; undefined when the recipient was listed already (it keeps its entry). */
    async add (workspaceId: string, recipient: string, also?: AlsoInTransaction<Suppression>): Promise<{ suppression: Suppression, added: boolean }> {
      const added = await changeWith(db, async on => (await on.insert(suppressions).values({ id: newId('sup'), workspaceId, recipient, reason: 'manual' })
        .onConflictDoNothing().returning())[0], also)
      if (added) return { suppression: added, added: true }
      const [existing] = await db.select().from(suppressions).where(and(eq(suppressions.workspaceId, workspaceId), eq(suppressions.recipient, recipient)))
      return { suppression: existing, added: false }
    },

    /** Removes the entry; undefined when the recipient was not listed. */
    async remove (workspaceId: string, recipient: string, also?: AlsoInTransaction<Suppression>): Promise<Suppression | undefined> {
      return await changeWith(db, async on => (await on.delete(suppressions)
        .where(and(eq(suppressions.workspaceId, workspaceId), eq(suppressions.recipient, recipient))).returning())[0], also)
    },

    async cooldownOf (workspaceId: string, recipient: string): Promise<Date | null> {
      const [row] = await db.select().from(cooldowns).where(and(eq(cooldowns.workspaceId, workspaceId), eq(cooldowns.recipient, recipient)))
      return row?.until ?? null
    }
  }
}

export type SuppressionStore = ReturnType<typeof suppressionStore>
