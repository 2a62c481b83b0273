import { and, desc, eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { messages, type MessageStatus } from '../../db/schema.js'
import { createBatcher } from './batcher.js'

export type MessageRecord = typeof messages.$inferSelect
export type PendingMessage = Pick<typeof messages.$inferInsert, 'id' | 'workspaceId' | 'apiKeyId' | 'phoneNumberId' | 'recipient' | 'type' | 'payload' | 'dispatcherId'> & { id: string }


interface Sent { id: string, wamid: string, attempts: number, updatedAt: Date }
interface Failed { id: string, errorCode: string, errorText: string, attempts: number, updatedAt: Date }

// Every send writes its record twice: concurrent sends share these statements (see batcher.ts).
const MAX_BATCH = 100

// The hot statements are written out rather than built by drizzle: a batch travels as one JSON
// parameter (the payload is serialised once, with the rest), the text never changes (postgres.js
// prepares it once) and no row comes back to be mapped but the timestamps. bench/RESULTS.md: drizzle's
// query building and row mapping were ~12% of a send's CPU.
const INSERT_PENDING = statement(`insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, dispatcher_id, status)
  select v.id, v.workspace_id, v.api_key_id, v.phone_number_id, v.recipient, v.type, v.payload, v.dispatcher_id, 'pending'
  from json_to_recordset($1::json) as v(id text, workspace_id text, api_key_id text, phone_number_id text, recipient text, type text, payload jsonb, dispatcher_id text)
  returning id, created_at, updated_at`)
// `interrupted` is a presumption made for a process that stopped answering; what a send actually
// returns later (a slow process whose lease lapsed) replaces it.
const PRESUMED_INTERRUPTED = `(m.status = 'failed' and m.error_code = 'interrupted')`
const UPDATE_SENT = statement(`update messages m set wamid = v.wamid, attempts = v.attempts, updated_at = v.updated_at,
  status = case when m.status = 'pending' or ${PRESUMED_INTERRUPTED} then 'sent' else m.status end,
  error_code = case when ${PRESUMED_INTERRUPTED} then null else m.error_code end,
  error_text = case when ${PRESUMED_INTERRUPTED} then null else m.error_text end
  from json_to_recordset($1::json) as v(id text, wamid text, attempts int, updated_at timestamptz) where m.id = v.id`)
const UPDATE_FAILED = statement(`update messages m set status = 'failed', error_code = v.error_code, error_text = v.error_text, attempts = v.attempts, updated_at = v.updated_at
  from json_to_recordset($1::json) as v(id text, error_code text, error_text text, attempts int, updated_at timestamptz)
  where m.id = v.id and (m.status = 'pending' or ${PRESUMED_INTERRUPTED})`)

/** A statement's text split around its one parameter, `$1`. */
type Statement = [string, string]
function statement (text: string): Statement {
  const [before, after] = text.split('$1')
  return [before, after]
}

export function messageStore (db: Database) {
  /** One of the statements above with the batch as its parameter; the driver's own rows. */
  async function run<Row> ([before, after]: Statement, batch: unknown[]): Promise<Row[]> {
    return rowsOf<Row>(await db.execute(sql`${sql.raw(before)}${JSON.stringify(batch)}${sql.raw(after)}`))
  }

  const insertPending = createBatcher(async (batch: PendingMessage[]): Promise<MessageRecord[]> => {
    const rows = await run<{ id: string, created_at: Date | string, updated_at: Date | string }>(INSERT_PENDING, batch.map(message => ({
      id: message.id,
      workspace_id: message.workspaceId,
      api_key_id: message.apiKeyId ?? null,
      phone_number_id: message.phoneNumberId,
      recipient: message.recipient,
      type: message.type,
      payload: message.payload,
      dispatcher_id: message.dispatcherId ?? null
    })))
    // RETURNING promises no order; a row missing here fails the batcher's count check.
    const byId = new Map(rows.map(row => [row.id, row]))
    return batch.flatMap(message => {
      const row = byId.get(message.id)
      return row ? [pendingRecord(message, new Date(row.created_at), new Date(row.updated_at))] : []
    })
  }, { maxBatch: MAX_BATCH })

  const updateSent = createBatcher(async (batch: Sent[]) => {
    await run(UPDATE_SENT, batch.map(row => ({ id: row.id, wamid: row.wamid, attempts: row.attempts, updated_at: row.updatedAt })))
    return batch.map(() => undefined)
  }, { maxBatch: MAX_BATCH })

  const updateFailed = createBatcher(async (batch: Failed[]) => {
    await run(UPDATE_FAILED, batch.map(row => ({ id: row.id, error_code: row.errorCode, error_text: row.errorText, attempts: row.attempts, updated_at: row.updatedAt })))
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
      return await insertPending(message)
    },

    /** A status webhook may have moved the record on already (it is matched by id before the wamid is known): never move it back. */
    async markSent (id: string, outcome: { wamid: string, attempts: number }): Promise<void> {
      await updateSent({ id, ...outcome, updatedAt: new Date() })
    },

    /** Only a record still pending fails: a webhook that already reported it sent or delivered knows better. */
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

/** What the insert wrote, as the record a select would return. */
function pendingRecord (message: PendingMessage, createdAt: Date, updatedAt: Date): MessageRecord {
  return {
    id: message.id,
    workspaceId: message.workspaceId,
    apiKeyId: message.apiKeyId ?? null,
    phoneNumberId: message.phoneNumberId,
    recipient: message.recipient,
    type: message.type,
    payload: message.payload,
    status: 'pending',
    wamid: null,
    errorCode: null,
    errorText: null,
    attempts: 0,
    pricingCategory: null,
    dispatcherId: message.dispatcherId ?? null,
    createdAt,
    updatedAt
  }
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
