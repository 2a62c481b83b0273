import { and, eq, isNull, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { messageEvents, messages } from '../../db/schema.js'
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

// Forward only: sent < delivered < read; failed only before delivered, and final.
const RANK = sql`case ${messages.status} when 'pending' then 0 when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 else 99 end`
const NEW_RANK = { sent: 1, delivered: 2, read: 3 } as const

export function statusEventStore (db: Database) {
  async function findRecord (event: StatusEvent): Promise<string | undefined> {
    const byWamid = eq(messages.wamid, event.wamid)
    // The status can outrun the storing of the wamid: the record id it carries finds the record then.
    const byRecordId = event.recordId === undefined
      ? undefined
      : and(eq(messages.id, event.recordId), eq(messages.phoneNumberId, event.phoneNumberId), or(isNull(messages.wamid), byWamid))
    const [row] = await db.select({ id: messages.id }).from(messages).where(byRecordId ? or(byWamid, byRecordId) : byWamid).limit(1)
    return row?.id
  }

  return {
    /**
     * Keeps the event in the record's history (once: an exact repeat is recognised by wamid, status and
     * upstream timestamp) and moves the record forward in one statement, so concurrent deliveries for
     * one message cannot lose an update. An event for an unknown message is kept aside.
     */
    async record (event: StatusEvent): Promise<StatusOutcome> {
      const messageId = await findRecord(event)
      const [inserted] = await db.insert(messageEvents).values({
        id: newId('evt'),
        messageId: messageId ?? null,
        wamid: event.wamid,
        status: event.status,
        upstreamTimestamp: event.upstreamTimestamp,
        errorCode: event.errorCode ?? null,
        errorText: event.errorText ?? null,
        pricingCategory: event.pricingCategory ?? null,
        payload: event.payload
      }).onConflictDoNothing().returning({ id: messageEvents.id })
      if (!inserted) return 'repeat'
      if (!messageId) return 'unknown'

      const allowed = event.status === 'failed'
        ? sql`${messages.status} in ('pending', 'sent')`
        : sql`${RANK} < ${NEW_RANK[event.status]}`
      const moved = await db.update(messages).set({
        status: event.status,
        wamid: sql`coalesce(${messages.wamid}, ${event.wamid})`,
        ...(event.status === 'failed' && { errorCode: event.errorCode ?? null, errorText: event.errorText ?? null }),
        updatedAt: new Date()
      }).where(and(eq(messages.id, messageId), allowed)).returning({ id: messages.id })
      if (event.pricingCategory) {
        await db.update(messages).set({ pricingCategory: event.pricingCategory }).where(and(eq(messages.id, messageId), isNull(messages.pricingCategory)))
      }
      return moved.length > 0 ? 'applied' : 'kept'
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
