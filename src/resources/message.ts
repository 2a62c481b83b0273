import type { MessageRecord } from '../../db/schema.js'
import { recipientView } from './recipient.js'
import { historyView, messageHistory, type HistoryFields, type UpstreamEvent } from './history.js'

/** The record's fields the API shows (never the payload: a read does not return the message's content). */
export type MessageFields = Pick<MessageRecord, 'id' | 'wamid' | 'recipient' | 'phoneNumberId' | 'type' | 'status' | 'errorCode' | 'errorText' | 'attempts' | 'clientReference' | 'heldReason' | 'pricing' | 'contentPurgedAt' | 'erased'> & HistoryFields

const errorOf = (code: string | null, message: string | null) => code === null ? null : { code, message }

/** M of CONTRACT.md 7 without its history: a log record as the API lists it, and the data of every message.* event. */
export function messageView (row: MessageFields) {
  return {
    id: row.id,
    wamid: row.wamid,
    // `to` null and `recipient_user_id` set for a message sent to a business-scoped user id
    ...recipientView(row.recipient),
    from_phone_number_id: row.phoneNumberId,
    type: row.type,
    // a queued send waiting for a reason (CONTRACT.md 14) is `held`; its reason says why
    status: held(row) ? 'held' as const : row.status,
    held_reason: held(row) ? row.heldReason : null,
    error: errorOf(row.errorCode, row.errorText),
    attempts: row.attempts,
    client_reference: row.clientReference,
    pricing: row.pricing ?? null,
    // the content went (retention, a purge, an erasure: CONTRACT.md 17); an erased record names nobody
    content_purged_at: row.contentPurgedAt?.toISOString() ?? null,
    // only an erased record says so: M of section 7 is otherwise unchanged
    ...(row.erased && { erased: true as const }),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString()
  }
}

const held = (row: MessageFields) => row.status === 'queued' && row.heldReason !== null && row.heldReason !== undefined

/** M with its whole history (history.ts tells it). */
export function messageWithHistory (row: MessageFields, events: readonly UpstreamEvent[]) {
  return { ...messageView(row), history: historyView(messageHistory(row, events)) }
}

const MESSAGE_EVENT = { sent: 'message.sent', delivered: 'message.delivered', read: 'message.read', failed: 'message.failed', queued: 'message.queued' } as const

/** The event a record's new status makes, if any (`pending`/`sending` make none): its data is a snapshot of M taken now. */
export function messageEvent (record: MessageRecord) {
  const type = MESSAGE_EVENT[record.status as keyof typeof MESSAGE_EVENT]
  return type ? { workspaceId: record.workspaceId, type, data: messageView(record) } : undefined
}

/** A log record as the command line lists it: M's first fields, without its history. */
export function publicMessage (message: MessageRecord) {
  return {
    id: message.id,
    wamid: message.wamid,
    ...recipientView(message.recipient),
    type: message.type,
    status: message.status,
    error_code: message.errorCode,
    attempts: message.attempts,
    created_at: message.createdAt.toISOString(),
    updated_at: message.updatedAt.toISOString()
  }
}
