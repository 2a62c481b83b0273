import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { dispatchers, messages } from '../../db/schema.js'
import { messageEvent } from '../resources/message.js'
import { anyOf } from './any-of.js'
import { emitEvents, type OutboxBell } from './outbox.js'

export const LOST_TEXT = 'Outcome unknown: the gateway lost track of this send before its outcome was recorded; it may or may not have been sent (a later status webhook settles it)'
export const INTERRUPTED_TEXT = 'Interrupted: the gateway process dispatching this message stopped before its outcome was recorded; it may or may not have been sent'

// A row outlives its lease by this long: a process that stalled past its lease renews into the same row.
const KEEP_EXPIRED = sql`interval '1 hour'`

const leaseEnd = (leaseMs: number) => sql`now() + ${leaseMs}::integer * interval '1 millisecond'`

/**
 * The `dispatchers` table: each live gateway process holds a lease that it renews; pending records
 * name the process dispatching them. Times come from the database's clock, the one every process shares.
 */
export function dispatcherStore (db: Database, outbox: OutboxBell) {
  async function interrupt (where: SQL, errorCode = 'interrupted', errorText = INTERRUPTED_TEXT): Promise<number> {
    const rows = await db.transaction(async tx => {
      const failed = await tx.update(messages)
        .set({ status: 'failed', errorCode, errorText, failedAt: sql`now()`, updatedAt: new Date() })
        .where(and(inArray(messages.status, ['pending', 'sending']), where))
        .returning()
      await emitEvents(tx, failed.map(messageEvent).filter(event => event !== undefined))
      return failed
    })
    if (rows.length > 0) outbox.committed()
    return rows.length
  }

  return {
    /** Takes or extends this process's lease. */
    async renew (id: string, leaseMs: number): Promise<void> {
      await db.insert(dispatchers).values({ id, leaseExpiresAt: leaseEnd(leaseMs) })
        .onConflictDoUpdate({ target: dispatchers.id, set: { leaseExpiresAt: leaseEnd(leaseMs) } })
    },

    /** Whether the process holds an unexpired lease: it is alive, or died less than a lease ago. */
    async alive (id: string): Promise<boolean> {
      const [row] = await db.select({ id: dispatchers.id }).from(dispatchers).where(and(eq(dispatchers.id, id), sql`${dispatchers.leaseExpiresAt} > now()`))
      return row !== undefined
    },

    async remove (id: string): Promise<void> {
      await db.delete(dispatchers).where(eq(dispatchers.id, id))
    },

    /**
     * Fails the records left pending by processes that are gone: their lease expired or their id is
     * unknown. A record not yet naming its process counts once it is older than a lease (its creator
     * names it within moments). `allOthers`: every other process is known to be gone (the embedded
     * database admits one process).
     */
    async interruptOrphans (selfId: string, options: { leaseMs: number, allOthers?: boolean }): Promise<number> {
      const notMine = sql`${messages.dispatcherId} is distinct from ${selfId}`
      if (options.allOthers) return await interrupt(notMine)
      const count = await interrupt(sql`${notMine}
        and not exists (select 1 from ${dispatchers} where ${dispatchers.id} = ${messages.dispatcherId} and ${dispatchers.leaseExpiresAt} > now())
        and (${messages.dispatcherId} is not null or ${messages.createdAt} < now() - ${options.leaseMs}::integer * interval '1 millisecond')`)
      await db.delete(dispatchers).where(sql`${dispatchers.leaseExpiresAt} < now() - ${KEEP_EXPIRED}`)
      return count
    },

    /**
     * The sweeper (CONTRACT.md 12): this live process's records still pending or sending after
     * `olderThanMs` that it is no longer working on (`except`: those it is) have lost their outcome;
     * they end failed `outcome_unknown`, which a later status webhook or outcome moves forward.
     */
    async settleLost (selfId: string, olderThanMs: number, except: string[]): Promise<number> {
      const busy = except.length > 0 ? sql`and not (${messages.id} = ${anyOf(except)})` : sql``
      return await interrupt(sql`${messages.dispatcherId} = ${selfId}
        and ${messages.updatedAt} < now() - ${olderThanMs}::integer * interval '1 millisecond' ${busy}`, 'outcome_unknown', LOST_TEXT)
    },

    /** Fails this process's own pending (and sending) records: at shutdown, for what could not finish. */
    async interruptOwn (selfId: string): Promise<number> {
      return await interrupt(eq(messages.dispatcherId, selfId))
    }
  }
}

export type DispatcherStore = ReturnType<typeof dispatcherStore>
