import { and, eq, inArray, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { messages, type MessageRecord } from '../../db/schema.js'
import { jobSql } from '../work/jobs.js'
import { insertWithKeys, type KeyToTake, type PendingMessage } from './keyed-insert.js'
import { messageEvent } from '../resources/message.js'
import { emitEvents, type OutboxBell } from './outbox.js'
import { createBatcher } from './batcher.js'
import { HELD_TIME_SO_FAR_SQL } from './holds.js'
import { QUEUED_SENDS } from '../work/send-queues.js'

export { QUEUED_SENDS } from '../work/send-queues.js'

export interface QueueDepth { phoneNumberId: string, depth: number, oldest: Date }

const MAX_BATCH = 100

/** The records of queued sends (CONTRACT.md 9): queued → sending → sent | failed. */
export function queuedSendStore (db: Database, outbox: OutboxBell) {
  // Concurrent hand-overs share one transaction: the records, their keys, their jobs and their
  // message.queued events commit together or not at all. A record whose key another holds is not written (null).
  // Each record names its creator until the creator confirms it (see confirm).
  const handOver = createBatcher(async (batch: Array<PendingMessage & { take?: KeyToTake, creator: string }>): Promise<Array<MessageRecord | null>> => {
    const byId = await db.transaction(async tx => {
      const written = await insertWithKeys(tx, batch.map(({ creator, ...message }) => ({ ...message, dispatcherId: creator })), 'queued')
      const records = [...written.values()]
      await jobSql.enqueue(tx, records.map(record => ({ queue: QUEUED_SENDS, groupKey: record.phoneNumberId, payload: record.id })))
      await emitEvents(tx, records.map(messageEvent).filter(event => event !== undefined))
      return written
    })
    if (byId.size > 0) outbox.committed()
    return batch.map(message => byId.get(message.id) ?? null)
  }, { maxBatch: MAX_BATCH })

  // Taken when its slot is granted, just before the upstream call: a record still waiting is `queued`, so a crash re-sends only what never left.
  // The claim carries its mark (sending_at): a claim retried because its reply was lost (the
  // database cut after the commit) finds the record `sending` with its own mark and has it, rather
  // than leaving it `sending` and never sent. Anyone else's claim, or an earlier one, does not match.
  const markSending = createBatcher(async (batch: Array<{ id: string, dispatcherId: string, at: Date }>) => {
    const rows = rowsOf<{ id: string }>(await db.execute(sql`update messages m set status = 'sending', dispatcher_id = v."dispatcherId", sending_at = v.at, updated_at = v.at,
        held_ms = m.held_ms + ${sql.raw(HELD_TIME_SO_FAR_SQL)}, held_reason = null, held_since = null
      from json_to_recordset(${JSON.stringify(batch)}::json) as v(id text, "dispatcherId" text, at timestamptz)
      where m.id = v.id and ((m.status = 'queued' and m.dispatcher_id is null) or (m.status = 'sending' and m.dispatcher_id = v."dispatcherId" and m.sending_at = v.at))
      returning m.id`))
    const taken = new Set(rows.map(row => row.id))
    return batch.map(item => taken.has(item.id))
  }, { maxBatch: MAX_BATCH })

  const confirm = createBatcher(async (batch: Array<{ id: string, creator: string }>) => {
    await db.execute(sql`update messages m set dispatcher_id = null
      from json_to_recordset(${JSON.stringify(batch)}::json) as v(id text, creator text)
      where m.id = v.id and m.status = 'queued' and m.dispatcher_id = v.creator`)
    return batch.map(() => undefined)
  }, { maxBatch: MAX_BATCH })

  return {
    /**
     * Stores a send as `queued` with the job that will dispatch it, taking its Idempotency-Key if it
     * has one (null: another record holds it). The record names its `creator` (dispatcher_id) until
     * confirmed: nobody sends it before.
     */
    async handOver (message: PendingMessage, creator: string, take?: KeyToTake): Promise<MessageRecord | null> {
      return await handOver({ ...message, take, creator })
    },

    /**
     * The creator heard its hand-over commit: the record may be sent. A hand-over whose commit's reply
     * was lost is never confirmed, so no process can send it while its creator withdraws it (or after
     * the creator is gone): the database, not one process's memory, says so (CONTRACT.md 12).
     */
    async confirm (id: string, creator: string): Promise<void> {
      await confirm({ id, creator })
    },

    /**
     * The record moves to `sending` under this process, marked `at`; false when it is no longer
     * queued (cancelled, expired, withdrawn) or not yet confirmed, unless it is this very claim's
     * (same process, same mark).
     */
    async markSending (id: string, dispatcherId: string, at: Date = new Date()): Promise<boolean> {
      return await markSending({ id, dispatcherId, at })
    },

    async byIds (ids: string[]): Promise<MessageRecord[]> {
      if (ids.length === 0) return []
      return await db.select().from(messages).where(inArray(messages.id, ids))
    },

    /** Queued records of the workspace, counted for ASYNC_QUEUE_LIMIT. */
    async countQueued (workspaceId: string): Promise<number> {
      // campaign messages count against no ASYNC_QUEUE_LIMIT (CONTRACT.md 15): a campaign of 100,000 must not refuse the next queued send
      const result = await db.execute(sql`select count(*)::int as n from messages where workspace_id = ${workspaceId} and status = 'queued' and campaign_id is null`)
      return Number(rowsOf<{ n: number }>(result)[0].n)
    },

    /** Per sending number of the workspace: how many wait, and since when. */
    async depths (workspaceId: string): Promise<QueueDepth[]> {
      const result = await db.execute(sql`select phone_number_id, count(*)::int as depth, min(created_at) as oldest
        from messages where workspace_id = ${workspaceId} and status = 'queued' group by phone_number_id`)
      return rowsOf<{ phone_number_id: string, depth: number, oldest: string | Date }>(result)
        .map(row => ({ phoneNumberId: row.phone_number_id, depth: Number(row.depth), oldest: new Date(row.oldest) }))
    },

    /**
     * Ends the workspace's queued records `failed` (`cancelled`), each with its message.failed event
     * in the same transaction; their jobs find them so and finish without sending.
     */
    async cancelAll (workspaceId: string): Promise<number> {
      const rows = await db.transaction(async tx => {
        const failed = await tx.update(messages)
          .set({ status: 'failed', errorCode: 'cancelled', errorText: 'Not sent: cancelled by an operator while it was queued', failedAt: sql`now()`, updatedAt: new Date() })
          .where(and(eq(messages.workspaceId, workspaceId), eq(messages.status, 'queued')))
          .returning()
        await emitEvents(tx, failed.map(messageEvent).filter(event => event !== undefined))
        return failed
      })
      if (rows.length > 0) outbox.committed()
      return rows.length
    }
  }
}

export type QueuedSendStore = ReturnType<typeof queuedSendStore>
