import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { messages, type MessageRecord, type MessageStatus } from '../../db/schema.js'
import { findCause } from '../faults/causes.js'
import { messageEvent } from '../resources/message.js'
import { OPEN_STATUSES, sqlStatuses } from '../resources/message-status.js'
import { emitEvents, type OutboxBell } from './outbox.js'
import { createBatcher } from './batcher.js'
import { asRecord, insertWithKeys, type KeyToTake, type PendingMessage } from './keyed-insert.js'
import { SlotRefused, type Slot, type SlotClaim } from './messaging-limit.js'

export type { KeyToTake, MessageRecord, PendingMessage }
/**
 * How a send's record is written: with the Idempotency-Key to take in its statement, or with the
 * messaging-limit slot to claim in it, or neither (a keyed send's slot is taken before, on its own).
 */
export type CreateOptions = { key: KeyToTake, claim?: never } | { claim?: SlotClaim, key?: never }
/** The record written, and the messaging-limit slot its insert counted anew (a claim's, to give back if the send never goes out). */
export interface Created { record: MessageRecord, slot?: Slot }
type PendingInsert = PendingMessage & { take?: KeyToTake, claim?: SlotClaim }
/** a record not written: its key is held by another (null), or its messaging-limit claim was refused */
type Inserted = Created | null | SlotRefused

interface Sent { id: string, wamid: string, attempts: number, updatedAt: Date }
interface Failed { id: string, errorCode: string, errorText: string, attempts: number, updatedAt: Date }

// Every send writes its record twice: concurrent sends share these statements (see batcher.ts).
const MAX_BATCH = 100

// The hot statements are written out rather than built by drizzle: a batch travels as one JSON
// parameter (the payload is serialised once, with the rest), the text never changes (prepared once
// per connection, db/prepared.ts) and no row comes back to be mapped but what the caller needs. bench/RESULTS.md:
// drizzle's query building and row mapping were ~12% of a send's CPU.
const INSERT_PENDING = statement(`insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, dispatcher_id, client_reference, status)
  select v.id, v.workspace_id, v.api_key_id, v.phone_number_id, v.recipient, v.type, v.payload, v.dispatcher_id, v.client_reference, 'pending'
  from json_to_recordset($1::json) as v(id text, workspace_id text, api_key_id text, phone_number_id text, recipient text, type text, payload jsonb, dispatcher_id text, client_reference text)
  returning id, created_at, updated_at`)
// The same insert taking the messaging-limit slots of the records that claim one (CONTRACT.md 14),
// in the statement's own transaction: a record is written only if its slot was taken, and a slot
// is taken only with its record (one statement, one commit). messaging_limit_claim
// (db/functions/messaging_limit_claim.sql) locks the WABA's count row: the claims go in (WABA,
// recipient) order, so two processes' batches take their locks in the same order. A phone number who wrote in the last 24 h is free
// (a reply in their service window); a user id's claim is taken before, on its own (decide.ts).
const INSERT_CLAIMING = statement(`with v as materialized (
    select * from json_to_recordset($1::json) as v(id text, workspace_id text, api_key_id text, phone_number_id text, recipient text, type text, payload jsonb,
      dispatcher_id text, client_reference text, waba_id text, slot_limit int, window_since timestamptz)
  ), claimed as materialized (
    select c.id, s.taken, s.counted_at, s.next_slot_at
    from (select * from v where v.waba_id is not null order by v.waba_id, v.recipient, v.id offset 0) c
      cross join lateral messaging_limit_claim(c.waba_id, c.recipient, c.slot_limit, exists (select 1 from inbound_messages i
        where i.phone_number_id = c.phone_number_id and i."from" = c.recipient and i.received_at > c.window_since)) s
  ), written as (
    insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, dispatcher_id, client_reference, status)
    select v.id, v.workspace_id, v.api_key_id, v.phone_number_id, v.recipient, v.type, v.payload, v.dispatcher_id, v.client_reference, 'pending'
    from v where v.waba_id is null or v.id in (select id from claimed where taken)
    returning id, created_at, updated_at
  )
  select v.id, w.created_at, w.updated_at, c.taken, c.counted_at, c.next_slot_at from v left join written w on w.id = v.id left join claimed c on c.id = v.id`)
// `interrupted` is a presumption made for a process that stopped answering, `outcome_unknown` one
// the sweeper makes for a record a live process lost track of; what a send actually returns later
// (a slow process whose lease lapsed, an outcome written once the database answered) replaces it. `queued` and `sending` are a
// queued send's steps before its outcome (src/messages/queue.ts).
const PRESUMED_INTERRUPTED = `(m.status = 'failed' and m.error_code in ('interrupted', 'outcome_unknown'))`
const STILL_OPEN = `(m.status in (${sqlStatuses(OPEN_STATUSES)}) or ${PRESUMED_INTERRUPTED})`
// The records are locked first (`b`, in id order), so `b.before` is what this update moves from
// whatever a status webhook did meanwhile: a record that moves makes its message.sent event once.
// A record whose workspace has no live webhook endpoint makes no event: its outcome is one
// autocommit statement (one round trip instead of begin, update, endpoint lookup, commit; the
// endpoint is looked up per row, in the statement's own snapshot). The others are left to
// updateWithEvents' transaction.
const UNSUBSCRIBED = 'not exists (select 1 from webhook_endpoints e where e.workspace_id = m.workspace_id and e.removed_at is null)'
const sentUpdate = (where: string, returning: string) => statement(`update messages m set wamid = v.wamid, attempts = v.attempts, updated_at = v.updated_at,
  sent_at = coalesce(m.sent_at, v.updated_at),
  status = case when m.status in ('pending', 'sending') or ${PRESUMED_INTERRUPTED} then 'sent' else m.status end,
  error_code = case when ${PRESUMED_INTERRUPTED} then null else m.error_code end,
  error_text = case when ${PRESUMED_INTERRUPTED} then null else m.error_text end
  from json_to_recordset($1::json) as v(id text, wamid text, attempts int, updated_at timestamptz),
    (select l.id, l.status as before from messages l where l.id = any(array(select x.id from json_to_recordset($1::json) as x(id text))) order by l.id for update) b
  where m.id = v.id and b.id = m.id${where}
  returning ${returning}`)
const UPDATE_SENT = sentUpdate('', 'm.*, b.before as before_status')
const UPDATE_SENT_UNSUBSCRIBED = sentUpdate(` and ${UNSUBSCRIBED}`, 'm.id')
// Locked in id order too, as every writer of several records locks them (the inbox's statuses):
// in the join's order two batches sharing records could each hold one the other waits for.
const failedUpdate = (where: string, returning: string) => statement(`update messages m set status = 'failed', error_code = v.error_code, error_text = v.error_text, attempts = v.attempts,
  updated_at = v.updated_at, failed_at = v.updated_at
  from json_to_recordset($1::json) as v(id text, error_code text, error_text text, attempts int, updated_at timestamptz),
    (select l.id from messages l where l.id = any(array(select x.id from json_to_recordset($1::json) as x(id text))) order by l.id for update) b
  where m.id = v.id and b.id = m.id and ${STILL_OPEN}${where}
  returning ${returning}`)
const UPDATE_FAILED = failedUpdate('', 'm.*')
const UPDATE_FAILED_UNSUBSCRIBED = failedUpdate(` and ${UNSUBSCRIBED}`, 'm.id')

const WITHDRAWN_TEXT = 'Not sent: the database failed while the record was written, and the request was answered 503 (database_unavailable)'

/** A statement's text split around its parameter, `$1` (which may stand more than once). */
type Statement = string[]
function statement (text: string): Statement {
  return text.split('$1')
}

export function messageStore (db: Database, outbox: OutboxBell) {
  /** One of the statements above with the batch as its parameter; the driver's own rows. */
  async function run<Row> (parts: Statement, batch: unknown[], on: Pick<Database, 'execute'> = db): Promise<Row[]> {
    const json = JSON.stringify(batch)
    const text = sql.join(parts.map((part, index) => index === 0 ? sql.raw(part) : sql`${json}${sql.raw(part)}`))
    return rowsOf<Row>(await on.execute(text))
  }

  /**
   * An outcome update and the events of the records it moved, in one transaction (CONTRACT.md 10);
   * records of workspaces without endpoints first, by `unsubscribed` alone.
   */
  async function updateWithEvents (statements: { unsubscribed: Statement, all: Statement }, batch: Array<{ id: string }>, moved: (row: Record<string, unknown>) => boolean): Promise<void> {
    const done = new Set((await run<{ id: string }>(statements.unsubscribed, batch)).map(row => row.id))
    const rest = batch.filter(row => !done.has(row.id))
    if (rest.length === 0) return
    const emitted = await db.transaction(async tx => {
      const rows = await run<Record<string, unknown>>(statements.all, rest, tx)
      return await emitEvents(tx, rows.filter(moved).map(row => messageEvent(asRecord(row))).filter(event => event !== undefined))
    })
    if (emitted.length > 0) outbox.committed()
  }

  // A record and its Idempotency-Key commit together (keyed-insert.ts); a record whose key is held by another is null.
  const insertPending = createBatcher(async (batch: PendingInsert[]): Promise<Inserted[]> => {
    if (batch.some(message => message.take)) {
      const byId = await insertWithKeys(db, batch)
      return batch.map(message => {
        const record = byId.get(message.id)
        return record ? { record } : message.take ? null : undefined
      }).filter(row => row !== undefined)
    }
    return await insertPlain(batch)
  }, { maxBatch: MAX_BATCH })
  // the records that claim a slot have their own batches: never beside a keyed record (insertWithKeys takes no slot)
  const insertClaiming = createBatcher(insertPlain, { maxBatch: MAX_BATCH })

  async function insertPlain (batch: PendingInsert[]): Promise<Inserted[]> {
    const claiming = batch.some(message => message.claim)
    const rows = await run<{ id: string, created_at: Date | string | null, updated_at: Date | string | null, taken: boolean | null, counted_at: string | null, next_slot_at: Date | string | null }>(claiming ? INSERT_CLAIMING : INSERT_PENDING, batch.map(message => ({
      id: message.id,
      workspace_id: message.workspaceId,
      api_key_id: message.apiKeyId ?? null,
      phone_number_id: message.phoneNumberId,
      recipient: message.recipient,
      type: message.type,
      payload: message.payload,
      dispatcher_id: message.dispatcherId ?? null,
      client_reference: message.clientReference ?? null,
      ...(claiming && { waba_id: message.claim?.wabaId ?? null, slot_limit: message.claim?.limit ?? null, window_since: message.claim?.windowSince ?? null })
    })))
    // RETURNING promises no order; a row missing here fails the batcher's count check.
    const byId = new Map(rows.map(row => [row.id, row]))
    return batch.flatMap((message): Inserted[] => {
      const row = byId.get(message.id)
      if (!row) return []
      if (row.taken === false) return [new SlotRefused(new Date(row.next_slot_at ?? Date.now()))]
      if (row.created_at === null || row.updated_at === null) return []
      const record = pendingRecord(message, new Date(row.created_at), new Date(row.updated_at))
      return [message.claim && row.counted_at !== null ? { record, slot: { wabaId: message.claim.wabaId, recipient: message.recipient, at: row.counted_at } } : { record }]
    })
  }

  /**
   * A send's record, written before anything goes upstream: the one way one is created (CONTRACT.md
   * 2, 8, 14). With `key`, the Idempotency-Key is taken in the same statement: null when another
   * record holds it. With `claim`, the messaging-limit slot is taken in the same statement
   * (INSERT_CLAIMING): SlotRefused when the limit is reached, nothing written.
   */
  async function create (message: PendingMessage, options?: { claim?: SlotClaim, key?: never }): Promise<Created>
  async function create (message: PendingMessage, options: CreateOptions): Promise<Created | null>
  async function create (message: PendingMessage, options: CreateOptions = {}): Promise<Created | null> {
    const inserted = options.claim ? await insertClaiming({ ...message, claim: options.claim }) : await insertPending(options.key ? { ...message, take: options.key } : message)
    if (inserted instanceof SlotRefused) throw inserted
    return inserted
  }

  async function writeSent (batch: Sent[]): Promise<undefined[]> {
    await updateWithEvents({ unsubscribed: UPDATE_SENT_UNSUBSCRIBED, all: UPDATE_SENT }, batch.map(row => ({ id: row.id, wamid: row.wamid, attempts: row.attempts, updated_at: row.updatedAt })),
      row => row.status === 'sent' && row.before_status !== 'sent')
    return batch.map(() => undefined)
  }

  async function writeFailed (batch: Failed[]): Promise<undefined[]> {
    await updateWithEvents({ unsubscribed: UPDATE_FAILED_UNSUBSCRIBED, all: UPDATE_FAILED }, batch.map(row => ({ id: row.id, error_code: row.errorCode, error_text: row.errorText, attempts: row.attempts, updated_at: row.updatedAt })),
      () => true)
    return batch.map(() => undefined)
  }

  // Outcomes of sends someone waits for and of bulk sends (queued, campaigns) go in separate lines:
  // a campaign's thousand outcomes a second must not put a live send's write behind its batches.
  const updateSent = { live: createBatcher(writeSent, { maxBatch: MAX_BATCH }), bulk: createBatcher(writeSent, { maxBatch: MAX_BATCH }) }
  const updateFailed = { live: createBatcher(writeFailed, { maxBatch: MAX_BATCH }), bulk: createBatcher(writeFailed, { maxBatch: MAX_BATCH }) }

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

    create,

    /** A status webhook may have moved the record on already (it is matched by id before the wamid is known): never move it back. */
    /** `bulk`: a queued or campaign send's, written in the bulk line (nobody waits on it). */
    async markSent (id: string, outcome: { wamid: string, attempts: number }, bulk = false): Promise<void> {
      await updateSent[bulk ? 'bulk' : 'live']({ id, ...outcome, updatedAt: new Date() })
    },

    /** Only a record still pending (or queued, or sending) fails: a webhook that already reported it sent or delivered knows better. */
    async markFailed (id: string, outcome: { errorCode: string, errorText: string, attempts: number }, bulk = false): Promise<void> {
      await updateFailed[bulk ? 'bulk' : 'live']({ id, ...outcome, updatedAt: new Date() })
    },

    /**
     * Ends a record whose creation's outcome was unknown and answered 503 (src/dispatch/withdrawals.ts):
     * failed `database_unavailable`, if it exists and nothing took it further (pending, or queued and
     * not yet claimed). Its events come with it (a queued record made message.queued).
     */
    async withdraw (id: string): Promise<void> {
      const emitted = await db.transaction(async tx => {
        const rows = await tx.update(messages)
          .set({ status: 'failed', errorCode: 'database_unavailable', errorText: WITHDRAWN_TEXT, failedAt: sql`now()`, updatedAt: new Date() })
          .where(and(eq(messages.id, id), inArray(messages.status, ['pending', 'queued'])))
          .returning()
        return await emitEvents(tx, rows.map(messageEvent).filter(event => event !== undefined))
      })
      if (emitted.length > 0) outbox.committed()
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
    clientReference: message.clientReference ?? null,
    campaignId: null,
    idempotencyKey: null,
    sentAt: null,
    failedAt: null,
    queuedAt: null,
    sendingAt: null,
    createdAt,
    updatedAt,
    heldReason: null,
    heldSince: null,
    heldMs: 0,
    pricing: null,
    billable: null,
    contentPurgedAt: null,
    erased: false
  }
}

/**
 * The write failed because another record has this wamid (the unique index on messages.wamid): the
 * upstream answered with the id of another message, which is no usable id (CONTRACT.md 12).
 */
export function isWamidTaken (error: unknown): boolean {
  return findCause(error, link => {
    const constraint = link.constraint_name ?? link.constraint
    return link.code === '23505' && typeof constraint === 'string' && constraint.includes('wamid')
  }) !== undefined
}
