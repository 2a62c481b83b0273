import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

/** A slot this send took anew: given back if the send never goes out (`at` as the database wrote it, to the microsecond). */
export interface Slot { wabaId: string, recipient: string, at: string }

/**
 * A slot to take in the statement that writes the send's log record (messages.ts), so that the
 * record and its slot commit together, in one statement: the WABA, its limit (null: none), and
 * since when a message from the recipient (a phone number) makes the send free (a reply in their
 * service window). That statement answers the slot when it counted the recipient anew.
 */
export interface SlotClaim { wabaId: string, limit: number | null, windowSince: Date }

/** The claim's limit is reached: the record was not written. */
export class SlotRefused extends Error {
  constructor (readonly nextSlotAt: Date) {
    super('messaging limit reached: no record written')
  }
}

export type SlotTaken = { taken: true, slot?: Slot } | { taken: false, nextSlotAt: Date }

export interface LimitUsage { used: number, oldest: Date | null }

/**
 * The messaging limit's rolling 24 h count of unique recipients, per WABA (the portfolio's numbers
 * share it): one row per recipient with the time of their latest counted send, and a count row per
 * WABA that is both the number checked and the lock (db/functions/messaging_limit_*.sql): two processes
 * taking the last slot take turns, and the second sees what the first wrote (CONTRACT.md 14).
 */
export function messagingLimitStore (db: Database) {
  return {
    /**
     * Counts the recipient in the WABA's window, unless that would make more than `limit` recipients
     * (null: no limit). A recipient already in the window costs nothing (their time moves on), and so
     * does one for whom `free` (an SQL boolean, evaluated in the same statement) is true: one round trip.
     */
    async take (wabaId: string, recipient: string, limit: number | null, free: SQL = sql`false`): Promise<SlotTaken> {
      const result = await db.execute(sql`select taken, counted_at, next_slot_at from messaging_limit_take(${wabaId}, ${recipient}, ${limit}::integer, (${free}))`)
      const [row] = rowsOf<{ taken: boolean, counted_at: string | null, next_slot_at: string | Date | null }>(result)
      if (row.taken) return row.counted_at === null ? { taken: true } : { taken: true, slot: { wabaId, recipient, at: row.counted_at } }
      return { taken: false, nextSlotAt: new Date(row.next_slot_at ?? Date.now()) }
    },

    /** The slot of a send that never went out (refused or failed before the upstream accepted it) frees again. */
    async giveBack (slot: Slot): Promise<void> {
      await db.execute(sql`select messaging_limit_give_back(${slot.wabaId}, ${slot.recipient}, ${slot.at}::timestamptz)`)
    },

    /** Recipients counted in the WABA's window now, and the oldest of their times (its slot frees 24 h later). */
    async usage (wabaId: string): Promise<LimitUsage> {
      const result = await db.execute(sql`select count(*)::int as used, min(last_at) as oldest
        from messaging_limit_recipients where waba_id = ${wabaId} and last_at > now() - interval '24 hours'`)
      const [row] = rowsOf<{ used: number, oldest: string | Date | null }>(result)
      return { used: Number(row.used), oldest: row.oldest === null ? null : new Date(row.oldest) }
    },

    /** Rows out of every window: kept only until this runs (hourly, with the tier refresh), each WABA's count with them. */
    async forgetOld (): Promise<void> {
      await db.execute(sql`select messaging_limit_forget_old()`)
    }
  }
}

export const DAY_MS = 24 * 60 * 60_000

export type MessagingLimitStore = ReturnType<typeof messagingLimitStore>
