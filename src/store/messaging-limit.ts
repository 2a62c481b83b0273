import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

export type SlotTaken = { taken: true } | { taken: false, nextSlotAt: Date }

export interface LimitUsage { used: number, oldest: Date | null }

// One advisory lock per WABA around the count and the insert: two processes checking the last slot
// at once take turns, and the second counts what the first wrote (CONTRACT.md 14).
const LOCK_SPACE = 'messaging-limit:'

/**
 * The messaging limit's rolling 24 h count of unique recipients, per WABA (the portfolio's numbers
 * share it): one row per recipient with the time of their latest counted send.
 */
export function messagingLimitStore (db: Database) {
  return {
    /**
     * Counts the recipient in the WABA's window, unless that would make more than `limit` recipients
     * (null: no limit). A recipient already in the window costs nothing (their time moves on).
     */
    async take (wabaId: string, recipient: string, limit: number | null): Promise<SlotTaken> {
      // the common case in one statement, no lock: a recipient counted already stays counted
      const again = await db.execute(sql`update messaging_limit_recipients set last_at = now()
        where waba_id = ${wabaId} and recipient = ${recipient} and last_at > now() - interval '24 hours' returning 1 as hit`)
      if (rowsOf(again).length > 0) return { taken: true }
      if (limit === null) {
        await upsert(db, wabaId, recipient)
        return { taken: true }
      }
      return await db.transaction(async tx => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${LOCK_SPACE + wabaId}))`)
        // a statement after the lock: its snapshot sees every slot taken before it
        const result = await tx.execute(sql`select count(*)::int as used, min(last_at) as oldest, bool_or(recipient = ${recipient}) as counted
          from messaging_limit_recipients where waba_id = ${wabaId} and last_at > now() - interval '24 hours'`)
        const [row] = rowsOf<{ used: number, oldest: string | Date | null, counted: boolean | null }>(result)
        if (row.counted === true || Number(row.used) < limit) {
          await upsert(tx, wabaId, recipient)
          return { taken: true as const }
        }
        return { taken: false as const, nextSlotAt: new Date(new Date(row.oldest ?? Date.now()).getTime() + DAY_MS) }
      })
    },

    /** Recipients counted in the WABA's window now, and the oldest of their times (its slot frees 24 h later). */
    async usage (wabaId: string): Promise<LimitUsage> {
      const result = await db.execute(sql`select count(*)::int as used, min(last_at) as oldest
        from messaging_limit_recipients where waba_id = ${wabaId} and last_at > now() - interval '24 hours'`)
      const [row] = rowsOf<{ used: number, oldest: string | Date | null }>(result)
      return { used: Number(row.used), oldest: row.oldest === null ? null : new Date(row.oldest) }
    },

    /** Rows out of every window: kept only until this runs (hourly, with the tier refresh). */
    async forgetOld (): Promise<void> {
      await db.execute(sql`delete from messaging_limit_recipients where last_at < now() - interval '24 hours'`)
    }
  }
}

export const DAY_MS = 24 * 60 * 60_000

async function upsert (on: Pick<Database, 'execute'>, wabaId: string, recipient: string): Promise<void> {
  await on.execute(sql`insert into messaging_limit_recipients (waba_id, recipient, last_at) values (${wabaId}, ${recipient}, now())
    on conflict (waba_id, recipient) do update set last_at = now()`)
}

export type MessagingLimitStore = ReturnType<typeof messagingLimitStore>
