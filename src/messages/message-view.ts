import type { MessageRow } from '../store/message-reads.js'

interface StatusEventRow { status: string, upstreamTimestamp: Date, receivedAt: Date, errorCode: string | null, errorText: string | null }

const errorOf = (code: string | null, message: string | null) => code === null ? null : { code, message }

/** M of CONTRACT.md 7 without its history: a log record as the API lists it. */
export function messageView (row: MessageRow) {
  return {
    id: row.id,
    wamid: row.wamid,
    to: row.recipient,
    from_phone_number_id: row.phoneNumberId,
    type: row.type,
    status: row.status,
    error: errorOf(row.errorCode, row.errorText),
    attempts: row.attempts,
    client_reference: row.clientReference,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString()
  }
}

/** M with its whole history. */
export function messageWithHistory (row: MessageRow, events: StatusEventRow[]) {
  return { ...messageView(row), history: historyOf(row, events) }
}

/**
 * The record's own steps on our clock (created, then our dispatch's end: sent or failed) and every
 * webhook event on the upstream's, ordered by time, ties by arrival. A failed step keeps its error
 * only while the record is still failed: a record presumed interrupted and then reported sent lost it.
 */
function historyOf (row: MessageRow, events: StatusEventRow[]) {
  const steps = [{ status: 'pending', at: row.createdAt, arrived: row.createdAt, error: null as ReturnType<typeof errorOf> }]
  if (row.sentAt) steps.push({ status: 'sent', at: row.sentAt, arrived: row.sentAt, error: null })
  if (row.failedAt) steps.push({ status: 'failed', at: row.failedAt, arrived: row.failedAt, error: row.status === 'failed' ? errorOf(row.errorCode, row.errorText) : null })
  for (const event of events) {
    steps.push({ status: event.status, at: event.upstreamTimestamp, arrived: event.receivedAt, error: errorOf(event.errorCode, event.errorText) })
  }
  steps.sort((a, b) => a.at.getTime() - b.at.getTime() || a.arrived.getTime() - b.arrived.getTime())
  return steps.map(step => ({ status: step.status, at: step.at.toISOString(), error: step.error }))
}
