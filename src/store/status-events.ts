import { eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { messageEvents } from '../../db/schema.js'
import { REACHED_STATUSES, sqlReachedRank, sqlStatuses } from '../resources/message-status.js'
import { anyOf } from './any-of.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export interface StatusEvent {
  wamid: string
  /** sent, delivered, read, failed move a record; any other value (played, deleted, …) is history only */
  status: string
  phoneNumberId: string
  upstreamTimestamp: Date
  /** our log record id, echoed back by the upstream as biz_opaque_callback_data */
  recordId?: string
  errorCode?: string
  errorText?: string
  pricingCategory?: string
  payload: unknown
}

/** A record whose status a batch changed. */
export interface StatusChange {
  messageId: string
  workspaceId: string
  wamid: string | null
  status: string
  previousStatus: string
  errorCode: string | null
  /** the upstream's time of the latest event applied */
  at: string
}

export interface StatusBatchResult {
  /** events new to the history (the others were exact repeats) */
  kept: number
  /** of those, events for no known record (kept with no message) */
  orphans: number
  changes: StatusChange[]
}

// A send that ended this way may have reached the upstream: a later sent/delivered/read proves it did.
export const UNKNOWN_OUTCOME_CODES = ['upstream_timeout', 'interrupted', 'upstream_error', 'outcome_unknown', 'upstream_invalid_response']

// Where the record stands: pending (and any status before a send) 0, sent 1, delivered 2, read 3;
// a failure whose outcome is unknown 0 (it may still move); a known failure 99 (final).
const REACHED = sql.raw(sqlStatuses(REACHED_STATUSES))
const RANK = sql.raw(`(case ${sqlReachedRank('m.status')}
  when m.status = 'failed' and m.error_code in (${UNKNOWN_OUTCOME_CODES.map(code => `'${code}'`).join(', ')}) then 0
  when m.status = 'failed' then 99 else 0 end)`)

/**
 * A batch of status events in two statements, whatever its size. First the records they name are
 * locked in id order (two processes applying batches that share records wait rather than
 * deadlock, and the second reads what the first wrote). Then one statement keeps every event in
 * the history once (an exact repeat — same wamid, status and upstream timestamp — meets a unique
 * index), and moves each record by its new events taken together: delivered or read win over a
 * failed beside them, failed wins over sent, nothing moves back, a known failure is final, and
 * an unknown outcome moves forward (its error cleared, since the events show it was sent).
 */
export async function recordStatuses (tx: Executor, events: StatusEvent[], options: { lockRecords: boolean }): Promise<StatusBatchResult> {
  if (events.length === 0) return { kept: 0, orphans: 0, changes: [] }
  const rows = events.map(event => ({
    id: newId('evt'), wamid: event.wamid, status: event.status, ts: event.upstreamTimestamp.toISOString(), record_id: event.recordId ?? null,
    phone_number_id: event.phoneNumberId, error_code: event.errorCode ?? null, error_text: event.errorText ?? null, pricing: event.pricingCategory ?? null, payload: event.payload
  }))
  // Ids first, each list through its own index, then the lock by primary key: written as one
  // `wamid = any(…) or id = any(…)` the planner may read the whole table and test every row against
  // both lists (seen: 1.5–3.6 s a batch at 20,000 messages). The embedded database has one
  // connection: no one else to wait for.
  if (options.lockRecords) {
    const wamids = events.map(event => event.wamid)
    const recordIds = JSON.stringify([...new Set(events.flatMap(event => event.recordId ? [event.recordId] : []))])
    await tx.execute(sql`select id from messages where id = any(array(
        select named.id from messages named where named.wamid = ${anyOf(wamids)}
        union select json_array_elements_text(${recordIds}::json)))
      order by id for update`)
  }
  const result = await tx.execute(sql`
    with input as (
      select * from json_to_recordset(${JSON.stringify(rows)}::json) as x(id text, wamid text, status text, ts timestamptz, record_id text,
        phone_number_id text, error_code text, error_text text, pricing text, payload jsonb)
    ), kept as (
      insert into message_events (id, message_id, wamid, status, upstream_timestamp, error_code, error_text, pricing_category, payload)
      select i.id, coalesce((select m.id from messages m where m.wamid = i.wamid),
          (select m.id from messages m where m.id = i.record_id and m.phone_number_id = i.phone_number_id and (m.wamid is null or m.wamid = i.wamid))),
        i.wamid, i.status, i.ts, i.error_code, i.error_text, i.pricing, i.payload
      from input i order by i.wamid, i.status, i.ts
      on conflict do nothing
      returning message_id, wamid, status, upstream_timestamp, error_code, error_text, pricing_category, payload -> 'pricing' as pricing
    ), best as (
      select k.message_id,
        max(case ${sql.raw(sqlReachedRank('k.status'))} else 0 end) as rank,
        bool_or(k.status = 'failed') as failed,
        (array_agg(k.error_code order by k.upstream_timestamp desc) filter (where k.status = 'failed'))[1] as fail_code,
        (array_agg(k.error_text order by k.upstream_timestamp desc) filter (where k.status = 'failed'))[1] as fail_text,
        min(k.wamid) as wamid, max(k.upstream_timestamp) as at,
        (array_agg(k.pricing_category) filter (where k.pricing_category is not null))[1] as pricing,
        (array_agg(k.pricing) filter (where jsonb_typeof(k.pricing) = 'object'))[1] as pricing_object
      from kept k where k.message_id is not null group by k.message_id
    ), decided as (
      select b.*, m.status as old_status, case
          when b.rank >= 2 and b.rank > ${RANK} then (array[${REACHED}])[b.rank]
          when b.failed and ${RANK} <= 1 then 'failed'
          when b.rank > ${RANK} then (array[${REACHED}])[b.rank]
        end as new_status
      -- the records through their primary key: as a plain join the planner reads the whole table
      -- once it is a few thousand rows (it estimates 100 rows of best whatever the batch)
      from best b join messages m on m.id = b.message_id
      where m.id = any(array(select message_id from best))
    ), moved as (
      update messages m set
        status = coalesce(d.new_status, m.status),
        error_code = case when d.new_status = 'failed' then d.fail_code when d.new_status is not null then null else m.error_code end,
        error_text = case when d.new_status = 'failed' then d.fail_text when d.new_status is not null then null else m.error_text end,
        wamid = coalesce(m.wamid, d.wamid),
        pricing_category = coalesce(m.pricing_category, d.pricing),
        -- the whole pricing object is kept (CONTRACT.md 14), its billable beside it for the usage index
        pricing = coalesce(m.pricing, d.pricing_object),
        billable = coalesce(m.billable, case d.pricing_object -> 'billable' when 'true'::jsonb then true when 'false'::jsonb then false end),
        updated_at = case when d.new_status is not null then now() else m.updated_at end
      from decided d where m.id = d.message_id
      returning m.id, m.workspace_id, m.wamid, m.status, m.error_code, d.old_status, d.new_status, d.at
    )
    select (select count(*) from kept)::int as kept, (select count(*) from kept where message_id is null)::int as orphans,
      (select coalesce(json_agg(json_build_object('messageId', id, 'workspaceId', workspace_id, 'wamid', wamid, 'status', status,
        'previousStatus', old_status, 'errorCode', error_code, 'at', at)), '[]'::json)::text
       from moved where new_status is not null and (new_status <> old_status or old_status = 'failed')) as changes`)
  const [row] = rowsOf<{ kept: number, orphans: number, changes: string }>(result)
  return { kept: Number(row.kept), orphans: Number(row.orphans), changes: JSON.parse(row.changes) as StatusChange[] }
}

export function statusEventStore (db: Database) {
  return {
    /** One batch on its own transaction (the inbox applies its batches inside its own). */
    async recordAll (events: StatusEvent[]): Promise<StatusBatchResult> {
      return await db.transaction(async tx => await recordStatuses(tx, events, { lockRecords: true }))
    },

    async byWamid (wamid: string) {
      return await db.select().from(messageEvents).where(eq(messageEvents.wamid, wamid)).orderBy(messageEvents.upstreamTimestamp, messageEvents.receivedAt)
    },

    async history (messageId: string) {
      return await db.select().from(messageEvents).where(eq(messageEvents.messageId, messageId)).orderBy(messageEvents.upstreamTimestamp, messageEvents.receivedAt)
    }
  }
}

export type StatusEventStore = ReturnType<typeof statusEventStore>
