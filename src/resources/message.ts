import type { MessageRecord } from '../../db/schema.js'

/** The record's fields the API shows (never the payload: a read does not return the message's content). */
export type MessageFields = Pick<MessageRecord, 'id' | 'wamid' | 'recipient' | 'phoneNumberId' | 'type' | 'status' | 'errorCode' | 'errorText' | 'attempts' | 'clientReference' | 'sentAt' | 'failedAt' | 'createdAt' | 'updatedAt' | 'heldReason' | 'pricing'>

interface StatusEventRow { status: string, upstreamTimestamp: Date, receivedAt: Date, errorCode: string | null, errorText: string | null }

const errorOf = (code: string | null, message: string | null) => code === null ? null : { code, message }

/** M of CONTRACT.md 7 without its history: a log record as the API lists it, and the data of every message.* event. */
export function messageView (row: MessageFields) {
  return {
    id: row.id,
    wamid: row.wamid,
    to: row.recipient,
    from_phone_number_id: row.phoneNumberId,
    type: row.type,
    // a queued send waiting for a reason (CONTRACT.md 14) is `held`; its reason says why
    status: held(row) ? 'held' as const : row.status,
    held_reason: held(row) ? row.heldReason : null,
    error: errorOf(row.errorCode, row.errorText),
    attempts: row.attempts,
    client_reference: row.clientReference,
    pricing: row.pricing ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString()
  }
}

const held = (row: MessageFields) => row.status === 'queued' && row.heldReason !== null && row.heldReason !== undefined

/** M with its whole history. */
export function messageWithHistory (row: MessageFields, events: StatusEventRow[]) {
  return { ...messageView(row), history: historyOf(row, events) }
}

/**
 * The record's own steps on our clock (created, then our dispatch's end: sent or failed) and every
 * webhook event on the upstream's, ordered by time, ties by arrival. A failed step keeps its error
 * only while the record is still failed: a record presumed interrupted and then reported sent lost it.
 */
function historyOf (row: MessageFields, events: StatusEventRow[]) {
  const steps = [{ status: 'pending', at: row.createdAt, arrived: row.createdAt, error: null as ReturnType<typeof errorOf> }]
  if (row.sentAt) steps.push({ status: 'sent', at: row.sentAt, arrived: row.sentAt, error: null })
  if (row.failedAt) steps.push({ status: 'failed', at: row.failedAt, arrived: row.failedAt, error: row.status === 'failed' ? errorOf(row.errorCode, row.errorText) : null })
  for (const event of events) {
    steps.push({ status: event.status, at: event.upstreamTimestamp, arrived: event.receivedAt, error: errorOf(event.errorCode, event.errorText) })
  }
  steps.sort((a, b) => a.at.getTime() - b.at.getTime() || a.arrived.getTime() - b.arrived.getTime())
  return steps.map(step => ({ status: step.status, at: step.at.toISOString(), error: step.error }))
}

const MESSAGE_EVENT = { sent: 'message.sent', delivered: 'message.delivered', read: 'message.read', failed: 'message.failed', queued: 'message.queued' } as const

/** The event a record's new status makes, if any (`pending`/`sending` make none): its data is a snapshot of M taken now. */
export function messageEvent (record: MessageRecord) {
  const type = MESSAGE_EVENT[record.status as keyof typeof MESSAGE_EVENT]
  return type ? { workspaceId: record.workspaceId, type, data: messageView(record) } : undefined
}
