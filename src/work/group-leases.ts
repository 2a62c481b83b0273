import { and, eq, inArray, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { jobGroups } from '../../db/schema.js'
import { anyOf } from '../store/any-of.js'

const leaseEnd = (leaseMs: number) => sql`now() + ${leaseMs}::integer * interval '1 millisecond'`

/**
 * Which process works each group of a group mode (src/work/groups.ts): one at a time, so that a
 * group's jobs keep their arrival order per line without a lock per line. A lease on the database's
 * clock; a holder that stops renewing it is replaced.
 */
export function groupLeases (db: Database, name: string) {
  return {
    /** The groups with jobs ready (or left running by a holder that died): a skip scan over the jobs index. */
    async withWork (queue: string): Promise<string[]> {
      const result = await db.execute(sql`
        with recursive g(key) as (
          (select group_key from jobs where queue = ${queue} and status <> 'dead' and group_key is not null order by group_key limit 1)
          union all
          select (select group_key from jobs where queue = ${queue} and status <> 'dead' and group_key > g.key order by group_key limit 1) from g where g.key is not null
        )
        select key from g where key is not null`)
      return rowsOf<{ key: string }>(result).map(row => row.key)
    },

    /** Takes the group's lease if it is free or expired (or already ours); true when this process holds it. */
    async take (groupKey: string, holder: string, leaseMs: number): Promise<boolean> {
      const rows = await db.insert(jobGroups).values({ name, groupKey, holder, leaseExpiresAt: leaseEnd(leaseMs) })
        .onConflictDoUpdate({
          target: [jobGroups.name, jobGroups.groupKey],
          set: { holder, leaseExpiresAt: leaseEnd(leaseMs) },
          setWhere: sql`${jobGroups.leaseExpiresAt} < now() or ${jobGroups.holder} = ${holder}`
        })
        .returning({ holder: jobGroups.holder })
      return rows.length > 0
    },

    /** Extends this process's leases; returns the groups it still holds. */
    async renew (groupKeys: string[], holder: string, leaseMs: number): Promise<string[]> {
      if (groupKeys.length === 0) return []
      const rows = await db.update(jobGroups).set({ leaseExpiresAt: leaseEnd(leaseMs) })
        .where(and(eq(jobGroups.name, name), inArray(jobGroups.groupKey, groupKeys), eq(jobGroups.holder, holder)))
        .returning({ groupKey: jobGroups.groupKey })
      return rows.map(row => row.groupKey)
    },

    /**
     * Whether a previous holder still has some of the group's jobs under an unexpired lease: a new
     * holder waits for them to run out, so that it never runs a later job of a line before an
     * earlier one the previous holder had not finished.
     */
    async leftByAnother (queues: string[], groupKey: string, holder: string): Promise<boolean> {
      const result = await db.execute(sql`select exists (select 1 from jobs where queue = ${anyOf(queues)} and group_key = ${groupKey}
        and status = 'running' and locked_by <> ${holder} and locked_until >= now()) as left`)
      return rowsOf<{ left: boolean }>(result)[0].left
    },

    /** The embedded database admits one process: every other holder is gone, its groups and job leases with it. */
    async takeOverAll (queues: string[], holder: string): Promise<void> {
      await db.delete(jobGroups).where(and(eq(jobGroups.name, name), sql`${jobGroups.holder} <> ${holder}`))
      await db.execute(sql`update jobs set locked_until = now() - interval '1 millisecond' where queue = ${anyOf(queues)} and status = 'running' and locked_by <> ${holder}`)
    },

    async release (groupKey: string, holder: string): Promise<void> {
      await db.delete(jobGroups).where(and(eq(jobGroups.name, name), eq(jobGroups.groupKey, groupKey), eq(jobGroups.holder, holder)))
    }
  }
}

export type GroupLeases = ReturnType<typeof groupLeases>
