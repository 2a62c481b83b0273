import { sql, type SQL } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import type { Executor } from '../../db/client.js'

/**
 * How one table's content is purged (CONTRACT.md 17), walked in the order of its time and key so
 * that a sweep never reads the same row twice: a batch of rows older than `before`, each purged
 * (`set`) or deleted, by primary key, in a statement of its own. The table is aliased `t`.
 */
export interface KeysetPurge {
  table: string
  /** the time retention counts from */
  at: string
  /** unique within `of`'s rows */
  key: string
  /** the workspace's rows */
  of (workspaceId: string): SQL
  /** a row whose content is still there (a purged row is not counted again) */
  unpurged: SQL
  /** the SET clause that purges a row; none: the row is deleted */
  set?: SQL
  /** a value each purged row gives back (a file's SHA-256) */
  returns?: SQL
}

export interface PurgeWindow { workspaceId: string, before: Date }
export interface Keyset { at: string, key: string }
export interface PurgeBatch { changed: number, next: Keyset | undefined, returned: string[] }

/** One batch: the next `limit` rows after `after`; `next` is undefined when there are no more. */
export async function purgeBatch (tx: Executor, spec: KeysetPurge, window: PurgeWindow, after: Keyset | undefined, limit: number): Promise<PurgeBatch> {
  const table = sql.raw(`"${spec.table}"`)
  const at = sql.raw(`t."${spec.at}"`)
  const key = sql.raw(`t."${spec.key}"`)
  const from = after ? sql`and (${at}, ${key}::text) > (${after.at}::timestamptz, ${after.key})` : sql``
  const returned = spec.returns ?? sql`null::text`
  const change = spec.set
    ? sql`update ${table} t set ${spec.set} from batch where ${key} = batch.k0 and ${spec.unpurged} returning ${returned} as r`
    : sql`delete from ${table} t using batch where ${key} = batch.k0 and ${spec.unpurged} returning ${returned} as r`
  const [row] = rowsOf<{ changed: number, seen: number, last_at: string | null, last_key: string | null, returned: string }>(await tx.execute(sql`
    with batch as (
      select ${key} as k0, ${key}::text as k, ${at} as at from ${table} t
      where ${spec.of(window.workspaceId)} and ${at} < ${window.before.toISOString()}::timestamptz ${from}
      order by ${at}, ${key}::text limit ${limit}),
    done as (${change}),
    last as (select at::text as at, k from batch order by at desc, k desc limit 1)
    select (select count(*) from done)::int as changed, (select count(*) from batch)::int as seen,
      (select at from last) as last_at, (select k from last) as last_key,
      (select coalesce(json_agg(r), '[]')::text from done where r is not null) as returned`))
  const next = row.seen === limit && row.last_at !== null && row.last_key !== null ? { at: row.last_at, key: row.last_key } : undefined
  return { changed: Number(row.changed), next, returned: JSON.parse(row.returned) as string[] }
}

/**
 * In a purge's or an erasure's transaction: the usage counts' triggers leave their figures alone
 * (db/functions/usage_count_changes.sql), since neither changes what was sent.
 */
export async function keepCounts (tx: Executor): Promise<void> {
  await tx.execute(sql`select set_config('outbound.counts_kept', 'on', true)`)
}

/** The workspace's campaigns created in [from, before) that have ended: their recipients' variables may go. */
export async function endedCampaigns (tx: Executor, window: PurgeWindow, from: Date | undefined): Promise<Array<{ id: string, rows: number }>> {
  const since = from ? sql`and created_at >= ${from.toISOString()}::timestamptz` : sql``
  return rowsOf<{ id: string, rows: number }>(await tx.execute(sql`select c.id, coalesce((select max(n) + 1 from campaign_recipients r where r.campaign_id = c.id), 0)::int as rows
    from campaigns c where workspace_id = ${window.workspaceId} and created_at < ${window.before.toISOString()}::timestamptz ${since}
    and status in ('completed', 'cancelled') order by created_at, id`)).map(row => ({ id: row.id, rows: Number(row.rows) }))
}

/** Rows [first, first + size) of a campaign's recipients lose their variables and reference; how many had them. */
export async function purgeCampaignRows (tx: Executor, campaignId: string, first: number, size: number): Promise<number> {
  return rowsOf(await tx.execute(sql`update campaign_recipients set variables = null, client_reference = null, content_purged_at = now()
    where campaign_id = ${campaignId} and n >= ${first} and n < ${first + size} and content_purged_at is null returning 1`)).length
}
