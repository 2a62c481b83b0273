import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

export type UsageGroup = 'day' | 'category' | 'country'
/** billable and free as the upstream's pricing said; unpriced: no status webhook has carried a price yet (not free) */
export interface UsageCounts { key: string, billable: number, free: number, unpriced: number, messages: number }

const numbers = (row: { billable: number, free: number, unpriced: number, messages: number }) =>
  ({ billable: Number(row.billable), free: Number(row.free), unpriced: Number(row.unpriced), messages: Number(row.messages) })

// country: grouped by the first three digits here (at most 900 groups), mapped to countries above the store
const KEYS: Record<UsageGroup, SQL> = { day: sql.raw('day'), category: sql.raw('category'), country: sql.raw('prefix') }

const HOUR_MS = 3_600_000

/**
 * The whole UTC hours inside [since, until), which the kept counts answer for; the records of the
 * edges around them ([since, from) and [to, until), less than an hour each) are counted one by one.
 * A period shorter than its hours is counted one by one (from = to = since).
 */
export function hoursOf (since: Date, until: Date): { from: Date, to: Date } {
  const from = Math.ceil(since.getTime() / HOUR_MS) * HOUR_MS
  const to = Math.floor(until.getTime() / HOUR_MS) * HOUR_MS
  return from < to ? { from: new Date(from), to: new Date(to) } : { from: since, to: since }
}

/**
 * Every accepted send of the period as (day, category, prefix, billable, free, unpriced, messages)
 * rows to sum: the whole hours from usage_sent and usage_priced (kept by the triggers of
 * db/functions/usage_count_*.sql in the statement that changes a record), the edges from messages
 * through messages_usage.
 * A priced count is its category's, and comes off the 'unknown' category's unpriced, where
 * usage_sent counts every accepted send: summed per any key, they give what counting the records
 * one by one gives.
 */
function countsOf (workspaceId: string, since: Date, until: Date): SQL {
  const { from, to } = hoursOf(since, until)
  const edge = (start: Date, end: Date) => sql`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, coalesce(pricing_category, 'unknown') as category,
      left(recipient, 3) as prefix, count(*) filter (where billable) as billable, count(*) filter (where not billable) as free,
      count(*) filter (where billable is null) as unpriced, count(*) as messages
    from messages where workspace_id = ${workspaceId} and wamid is not null
      and created_at >= ${start.toISOString()}::timestamptz and created_at < ${end.toISOString()}::timestamptz
    group by 1, 2, 3`
  const hours = sql`workspace_id = ${workspaceId} and hour >= ${from.toISOString()}::timestamptz and hour < ${to.toISOString()}::timestamptz`
  const day = sql.raw(`to_char(hour at time zone 'UTC', 'YYYY-MM-DD')`)
  return sql`${edge(since, from)}
    union all ${edge(to, until)}
    union all select ${day}, 'unknown', prefix, 0, 0, messages, messages from usage_sent where ${hours}
    union all select ${day}, category, prefix, billable, free, unpriced, billable + free + unpriced from usage_priced where ${hours}
    union all select ${day}, 'unknown', prefix, 0, 0, -(billable + free + unpriced), -(billable + free + unpriced) from usage_priced where ${hours}`
}

const SUMS = sql.raw('sum(billable)::int as billable, sum(free)::int as free, sum(unpriced)::int as unpriced, sum(messages)::int as messages')

/**
 * What a workspace's sends cost (CONTRACT.md 14): messages the upstream accepted (they have a
 * wamid) created in [since, until), counted per group, with how many were billable. Reads the
 * counts kept per hour, and the records of at most two partial hours (countsOf).
 */
export function usageStore (db: Database) {
  return {
    async counts (workspaceId: string, since: Date, until: Date, group: UsageGroup): Promise<UsageCounts[]> {
      const key = KEYS[group]
      const result = await db.execute(sql`select ${key} as key, ${SUMS} from (${countsOf(workspaceId, since, until)}) c
        group by 1 having sum(messages) <> 0 order by 1`)
      return rowsOf<UsageCounts>(result).map(row => ({ key: row.key, ...numbers(row) }))
    },

    /** Per day and category at once: the dashboard's chart. */
    async countsByDayAndCategory (workspaceId: string, since: Date, until: Date): Promise<Array<Omit<UsageCounts, 'key'> & { day: string, category: string }>> {
      const result = await db.execute(sql`select day, category, ${SUMS} from (${countsOf(workspaceId, since, until)}) c
        group by 1, 2 having sum(messages) <> 0 order by 1, 2`)
      return rowsOf<UsageCounts & { day: string, category: string }>(result).map(row => ({ day: row.day, category: row.category, ...numbers(row) }))
    }
  }
}

export type UsageStore = ReturnType<typeof usageStore>
