import { eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { messageEvents } from '../../db/schema.js'
import { newId } from './ids.js'

export interface StatusEvent {
  wamid: string
  status: 'sent' | 'delivered' | 'read' | 'failed'
  phoneNumberId: string
  upstreamTimestamp: Date
  /** our log record id, echoed back by the upstream as biz_opaque_callback_data */
  recordId?: string
  errorCode?: string
  errorText?: string
  pricingCategory?: string
  payload: unknown
}

export type StatusOutcome = 'applied' | 'kept' | 'repeat' | 'unknown'

export function statusEventStore (db: Database) {
  return {
    /**
     * A delivery's statuses in one transaction (one commit rather than one per status), in wamid
     * order so that two concurrent deliveries lock the records they share in the same order.
     */
    async recordAll (events: StatusEvent[]): Promise<StatusOutcome[]> {
      const ordered = [...events].sort((a, b) => a.wamid < b.wamid ? -1 : a.wamid > b.wamid ? 1 : 0)
      return await db.transaction(async tx => {
        const outcomes: StatusOutcome[] = []
        for (const event of ordered) outcomes.push(await recordStatus(tx, event))
        return outcomes
      })
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

/**
 * One statement: find the record (by wamid, or by the record id the status carries when it outran
 * the storing of the wamid), keep the event in its history once (an exact repeat — same wamid,
 * status and upstream timestamp — meets a unique index), and move the record forward only:
 * sent < delivered < read, failed only before delivered. The row lock of the update makes
 * concurrent deliveries for one message safe. An event for an unknown message is kept aside.
 */
async function recordStatus (db: Pick<Database, 'execute'>, event: StatusEvent): Promise<StatusOutcome> {
  const failed = event.status === 'failed'
  const rank = { sent: 1, delivered: 2, read: 3, failed: 0 }[event.status]
  const advances = failed
    ? sql`m.status in ('pending', 'sending', 'sent')`
    : sql`(case m.status when 'pending' then 0 when 'sending' then 0 when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 else 99 end) < ${rank}`
  const result = await db.execute(sql`
    with target as (
      select id from messages
      where wamid = ${event.wamid}
         or (id = ${event.recordId ?? null} and phone_number_id = ${event.phoneNumberId} and (wamid is null or wamid = ${event.wamid}))
      limit 1
    ), kept as (
      insert into message_events (id, message_id, wamid, status, upstream_timestamp, error_code, error_text, pricing_category, payload)
      values (${newId('evt')}, (select id from target), ${event.wamid}, ${event.status}, ${event.upstreamTimestamp.toISOString()}::timestamptz,
              ${event.errorCode ?? null}, ${event.errorText ?? null}, ${event.pricingCategory ?? null}, ${JSON.stringify(event.payload)}::jsonb)
      on conflict do nothing
      returning message_id
    ), moved as (
      update messages m set
        status = case when ${advances} then ${event.status} else m.status end,
        error_code = case when ${failed} and ${advances} then ${event.errorCode ?? null} else m.error_code end,
        error_text = case when ${failed} and ${advances} then ${event.errorText ?? null} else m.error_text end,
        wamid = coalesce(m.wamid, ${event.wamid}),
        pricing_category = coalesce(m.pricing_category, ${event.pricingCategory ?? null}),
        updated_at = case when ${advances} then now() else m.updated_at end
      from kept where m.id = kept.message_id
      returning m.status
    )
    select (select count(*) from kept)::int as kept, (select id from target) as message_id, (select status from moved) as status`)
  const [row] = rowsOf<{ kept: number, message_id: string | null, status: string | null }>(result)
  if (row.kept === 0) return 'repeat'
  if (row.message_id === null) return 'unknown'
  return row.status === event.status ? 'applied' : 'kept'
}
