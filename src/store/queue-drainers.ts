import { and, eq, inArray, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { queueDrainers } from '../../db/schema.js'

const leaseEnd = (leaseMs: number) => sql`now() + ${leaseMs}::integer * interval '1 millisecond'`

/**
 * Which process drains each number's queue: one at a time, so that a number's queued sends keep
 * their arrival order per recipient without a lock per recipient. A lease on the database's clock;
 * a holder that stops renewing it is replaced.
 */
export function queueDrainerStore (db: Database) {
  return {
    /** The numbers with queued sends ready (or left running by a holder that died): a skip scan over the jobs index. */
    async numbersWithWork (queue: string): Promise<string[]> {
      const result = await db.execute(sql`
        with recursive g(key) as (
          (select group_key from jobs where queue = ${queue} and status <> 'dead' and group_key is not null order by group_key limit 1)
          union all
          select (select group_key from jobs where queue = ${queue} and status <> 'dead' and group_key > g.key order by group_key limit 1) from g where g.key is not null
        )
        select key from g where key is not null`)
      return rowsOf<{ key: string }>(result).map(row => row.key)
    },

    /** Takes the number's lease if it is free or expired (or already ours); true when this process holds it. */
    async take (phoneNumberId: string, holder: string, leaseMs: number): Promise<boolean> {
      const rows = await db.insert(queueDrainers).values({ phoneNumberId, holder, leaseExpiresAt: leaseEnd(leaseMs) })
        .onConflictDoUpdate({
          target: queueDrainers.phoneNumberId,
          set: { holder, leaseExpiresAt: leaseEnd(leaseMs) },
          setWhere: sql`${queueDrainers.leaseExpiresAt} < now() or ${queueDrainers.holder} = ${holder}`
        })
        .returning({ holder: queueDrainers.holder })
      return rows.length > 0
    },

    /** Extends this process's leases; returns the numbers it still holds. */
    async renew (phoneNumberIds: string[], holder: string, leaseMs: number): Promise<string[]> {
      if (phoneNumberIds.length === 0) return []
      const rows = await db.update(queueDrainers).set({ leaseExpiresAt: leaseEnd(leaseMs) })
        .where(and(inArray(queueDrainers.phoneNumberId, phoneNumberIds), eq(queueDrainers.holder, holder)))
        .returning({ phoneNumberId: queueDrainers.phoneNumberId })
      return rows.map(row => row.phoneNumberId)
    },

    /**
     * Whether a previous holder still has some of the number's jobs under an unexpired lease: a new
     * holder waits for them to run out, so that it never sends a later message to a recipient
     * before an earlier one the previous holder had not sent.
     */
    async leftByAnother (queue: string, phoneNumberId: string, holder: string): Promise<boolean> {
      const result = await db.execute(sql`select exists (select 1 from jobs where queue = ${queue} and group_key = ${phoneNumberId}
        and status = 'running' and locked_by <> ${holder} and locked_until >= now()) as left`)
      return rowsOf<{ left: boolean }>(result)[0].left
    },

    /** The embedded database admits one process: every other holder is gone, its drains and job leases with it. */
    async takeOverAll (queue: string, holder: string): Promise<void> {
      await db.delete(queueDrainers).where(sql`${queueDrainers.holder} <> ${holder}`)
      await db.execute(sql`update jobs set locked_until = now() - interval '1 millisecond' where queue = ${queue} and status = 'running' and locked_by <> ${holder}`)
    },

    async release (phoneNumberId: string, holder: string): Promise<void> {
      await db.delete(queueDrainers).where(and(eq(queueDrainers.phoneNumberId, phoneNumberId), eq(queueDrainers.holder, holder)))
    }
  }
}

export type QueueDrainerStore = ReturnType<typeof queueDrainerStore>
