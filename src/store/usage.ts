import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

export type UsageGroup = 'day' | 'category' | 'country'
/** billable and free as the upstream's pricing said; unpriced: no status webhook has carried a price yet (not free) */
export interface UsageCounts { key: string, billable: number, free: number, unpriced: number, messages: number }

const COUNTS = sql.raw(`count(*) filter (where billable)::int as billable, count(*) filter (where not billable)::int as free,
  count(*) filter (where billable is null)::int as unpriced, count(*)::int as messages`)
const numbers = (row: { billable: number, free: number, unpriced: number, messages: number }) =>
  ({ billable: Number(row.billable), free: Number(row.free), unpriced: Number(row.unpriced), messages: Number(row.messages) })

// country: grouped by the first three digits here (at most 900 groups), mapped to countries above the store
const KEYS: Record<UsageGroup, ReturnType<typeof sql.raw>> = {
  day: sql.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`),
  category: sql.raw(`coalesce(pricing_category, 'unknown')`),
  country: sql.raw('left(recipient, 3)')
}

/**
 * What a workspace's sends cost (CONTRACT.md 14): messages the upstream accepted (they have a
 * wamid) created in [since, until), counted per group, with how many were billable. One index-only
 * scan of messages_usage (workspace_id, created_at) INCLUDE (pricing_category, billable, recipient).
 */
export function usageStore (db: Database) {
  return {
    async counts (workspaceId: string, since: Date, until: Date, group: UsageGroup): Promise<UsageCounts[]> {
      const key = KEYS[group]
      const result = await db.execute(sql`select ${key} as key, ${COUNTS}
        from messages where workspace_id = ${workspaceId} and wamid is not null
          and created_at >= ${since.toISOString()}::timestamptz and created_at < ${until.toISOString()}::timestamptz
        group by 1 order by 1`)
      return rowsOf<UsageCounts>(result).map(row => ({ key: row.key, ...numbers(row) }))
    },

    /** Per day and category at once: the dashboard's chart. */
    async countsByDayAndCategory (workspaceId: string, since: Date, until: Date): Promise<Array<Omit<UsageCounts, 'key'> & { day: string, category: string }>> {
      const result = await db.execute(sql`select ${KEYS.day} as day, ${KEYS.category} as category, ${COUNTS}
        from messages where workspace_id = ${workspaceId} and wamid is not null
          and created_at >= ${since.toISOString()}::timestamptz and created_at < ${until.toISOString()}::timestamptz
        group by 1, 2 order by 1, 2`)
      return rowsOf<UsageCounts & { day: string, category: string }>(result).map(row => ({ day: row.day, category: row.category, ...numbers(row) }))
    }
  }
}

export type UsageStore = ReturnType<typeof usageStore>
