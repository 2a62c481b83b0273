import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { messages, type MessageStatus } from '../../db/schema.js'
import { emitEvents, outboxCommitted } from '../events/outbox.js'
import { messageEvent } from '../events/resources.js'
import { createBatcher } from './batcher.js'
import { insertWithKeys } from './keyed-insert.js'

export type MessageRecord = typeof messages.$inferSelect
export type PendingMessage = Pick<typeof messages.$inferInsert, 'id' | 'workspaceId' | 'apiKeyId' | 'phoneNumberId' | 'recipient' | 'type' | 'payload' | 'dispatcherId' | 'clientReference'> & { id: string }
/** An Idempotency-Key to take with the record (CONTRACT.md 8). */
export interface KeyToTake { key: string, fingerprint: string, ttlMs: number }
type PendingInsert = PendingMessage & { take?: KeyToTake }

// `interrupted` is a presumption made for a process that stopped answering; what a send actually
// returns later (a slow process whose lease lapsed) replaces it.
const presumedInterrupted = sql`(${messages.status} = 'failed' and ${messages.errorCode} = 'interrupted')`
// `queued` and `sending` are a queued send's steps before its outcome (src/messages/queue.ts).
const stillOpen = or(sql`${messages.status} in ('pending', 'queued', 'sending')`, presumedInterrupted)

interface Sent { id: string, wamid: string, attempts: number, updatedAt: Date }
interface Failed { id: string, errorCode: string, errorText: string, attempts: number, updatedAt: Date }

// Every send writes its record twice: concurrent sends share these statements (see batcher.ts).
const MAX_BATCH = 100

export function messageStore (db: Database) {
  // A record and its Idempotency-Key commit together (keyed-insert.ts); a record whose key is held by another is null.
  const insertPending = createBatcher(async (batch: PendingInsert[]): Promise<Array<MessageRecord | null>> => {
    let byId: Map<string, MessageRecord>
    if (batch.some(message => message.take)) {
      byId = await insertWithKeys(db, batch)
    } else {
      const rows = await db.insert(messages).values(batch.map(message => ({ ...message, status: 'pending' as const }))).returning()
      byId = new Map(rows.map(row => [row.id, row]))
    }
    // RETURNING promises no order; a row missing here fails the batcher's count check
    return batch.map(message => byId.get(message.id) ?? (message.take ? null : undefined)).filter(row => row !== undefined)
  }, { maxBatch: MAX_BATCH })

  const updateSent = createBatcher(async (batch: Sent[]) => {
    const v = valuesAs('id, wamid, attempts, updated_at',
      batch.map(row => sql`(${row.id}::text, ${row.wamid}::text, ${row.attempts}::int, ${row.updatedAt.toISOString()}::timestamptz)`))
    const moved = await db.transaction(async tx => {
      // locked first, so `before` is what this update moves from, whatever a webhook did meanwhile
      const before = new Map((await tx.select({ id: messages.id, status: messages.status, errorCode: messages.errorCode }).from(messages)
        .where(inArray(messages.id, batch.map(row => row.id))).orderBy(messages.id).for('update')).map(row => [row.id, row]))
      const rows = await tx.update(messages).set({
        wamid: sql`v.wamid`,
        attempts: sql`v.attempts`,
        status: sql`case when ${messages.status} in ('pending', 'sending') or ${presumedInterrupted} then 'sent' else ${messages.status} end`,
        sentAt: sql`coalesce(${messages.sentAt}, v.updated_at)`,
        errorCode: sql`case when ${presumedInterrupted} then null else ${messages.errorCode} end`,
        errorText: sql`case when ${presumedInterrupted} then null else ${messages.errorText} end`,
        updatedAt: sql`v.updated_at`
      }).from(v).where(eq(messages.id, sql`v.id`)).returning() as unknown as MessageRecord[]
      const changed = rows.filter(row => row.status === 'sent' && before.get(row.id)?.status !== 'sent')
      return await emitEvents(tx, changed.map(messageEvent).filter(event => event !== undefined))
    })
    if (moved.length > 0) outboxCommitted()
    return batch.map(() => undefined)
  }, { maxBatch: MAX_BATCH })

  const updateFailed = createBatcher(async (batch: Failed[]) => {
    const v = valuesAs('id, error_code, error_text, attempts, updated_at',
      batch.map(row => sql`(${row.id}::text, ${row.errorCode}::text, ${row.errorText}::text, ${row.attempts}::int, ${row.updatedAt.toISOString()}::timestamptz)`))
    const emitted = await db.transaction(async tx => {
      const rows = await tx.update(messages).set({
        status: 'failed',
        failedAt: sql`v.updated_at`,
        errorCode: sql`v.error_code`,
        errorText: sql`v.error_text`,
        attempts: sql`v.attempts`,
        updatedAt: sql`v.updated_at`
      }).from(v).where(and(eq(messages.id, sql`v.id`), stillOpen)).returning() as unknown as MessageRecord[]
      return await emitEvents(tx, rows.map(messageEvent).filter(event => event !== undefined))
    })
    if (emitted.length > 0) outboxCommitted()
    return batch.map(() => undefined)
  }, { maxBatch: MAX_BATCH })

  return {
    /** Newest first. */
    async list (workspaceId: string, options: { status?: MessageStatus, limit?: number } = {}): Promise<MessageRecord[]> {
      const where = options.status
        ? and(eq(messages.workspaceId, workspaceId), eq(messages.status, options.status))
        : eq(messages.workspaceId, workspaceId)
      return await db.select().from(messages).where(where)
        .orderBy(desc(messages.createdAt), desc(messages.id)).limit(options.limit ?? 50)
    },

    async get (id: string): Promise<MessageRecord | undefined> {
      const [row] = await db.select().from(messages).where(eq(messages.id, id))
      return row
    },

    /** The record of a send about to be attempted: written before anything goes upstream. */
    async createPending (message: PendingMessage): Promise<MessageRecord> {
      return (await insertPending(message))!
    },

    /** createPending, taking the Idempotency-Key in the same transaction; null when another record holds the key. */
    async createPendingWithKey (message: PendingMessage, take: KeyToTake): Promise<MessageRecord | null> {
      return await insertPending({ ...message, take })
    },

    /** A status webhook may have moved the record on already (it is matched by id before the wamid is known): never move it back. */
    async markSent (id: string, outcome: { wamid: string, attempts: number }): Promise<void> {
      await updateSent({ id, ...outcome, updatedAt: new Date() })
    },

    /** Only a record still pending (or queued, or sending) fails: a webhook that already reported it sent or delivered knows better. */
    async markFailed (id: string, outcome: { errorCode: string, errorText: string, attempts: number }): Promise<void> {
      await updateFailed({ id, ...outcome, updatedAt: new Date() })
    },

    /** Names the process dispatching a record that was created without it. */
    async claim (id: string, dispatcherId: string): Promise<void> {
      await db.update(messages).set({ dispatcherId }).where(and(eq(messages.id, id), eq(messages.status, 'pending')))
    }
  }
}

export type MessageStore = ReturnType<typeof messageStore>

/** A batch's rows as the table `v` that an update reads from. */
function valuesAs (columns: string, rows: SQL[]): SQL {
  return sql`(values ${sql.join(rows, sql`, `)}) as v(${sql.raw(columns)})`
}

export function publicMessage (message: MessageRecord) {
  return {
    id: message.id,
    wamid: message.wamid,
    to: message.recipient,
    type: message.type,
    status: message.status,
    error_code: message.errorCode,
    attempts: message.attempts,
    created_at: message.createdAt.toISOString(),
    updated_at: message.updatedAt.toISOString()
  }
}
