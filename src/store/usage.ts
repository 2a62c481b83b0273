import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

export type UsageGroup = 'day' | 'category' | 'country'
export interface UsageCounts { key: string, billable: number, messages: number }

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
      const result = await db.execute(sql`select ${key} as key, count(*) filter (where billable)::int as billable, count(*)::int as messages
        from messages where workspace_id = ${workspaceId} and wamid is not null
          and created_at >= ${since.toISOString()}::timestamptz and created_at < ${until.toISOString()}::timestamptz
        group by 1 order by 1`)
      return rowsOf<{ key: string, billable: number, messages: number }>(result).map(row => ({ key: row.key, billable: Number(row.billable), messages: Number(row.messages) }))
    },

    /** Per day and category at once: the dashboard's chart. */
    async countsByDayAndCategory (workspaceId: string, since: Date, until: Date): Promise<Array<{ day: string, category: string, billable: number, messages: number }>> {
      const result = await db.execute(sql`select ${KEYS.day} as day, ${KEYS.category} as category, count(*) filter (where billable)::int as billable, count(*)::int as messages
        from messages where workspace_id = ${workspaceId} and wamid is not null
          and created_at >= ${since.toISOString()}::timestamptz and created_at < ${until.toISOString()}::timestamptz
        group by 1, 2 order by 1, 2`)
      return rowsOf<{ day: string, category: string, billable: number, messages: number }>(result).map(row => ({ ...row, billable: Number(row.billable), messages: Number(row.messages) }))
    }
  }
}

export type UsageStore = ReturnType<typeof usageStore>
