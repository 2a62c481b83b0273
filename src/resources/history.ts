import type { MessageRecord } from '../../db/schema.js'
import { lifeRank as rankOf } from './message-status.js'

/** The record's fields its history is told from. */
export type HistoryFields = Pick<MessageRecord, 'status' | 'errorCode' | 'errorText' | 'queuedAt' | 'sendingAt' | 'sentAt' | 'failedAt' | 'createdAt' | 'updatedAt'>

/** A status event of the upstream's, as kept in message_events. */
export interface UpstreamEvent { status: string, upstreamTimestamp: Date, receivedAt: Date, errorCode: string | null, errorText: string | null, pricingCategory?: string | null }

export interface HistoryStep {
  status: string
  /** when it happened: our clock for our own steps, the upstream's for its events (never before a step it must follow) */
  at: Date
  error: { code: string, message: string | null } | null
  /** `gateway`: a step of our own (written when our dispatch moved the record); `upstream`: a status webhook */
  source: 'gateway' | 'upstream'
  pricing: string | null
  /** when it reached us: the webhook's arrival, or the step's own time */
  receivedAt: Date
}


const errorOf = (code: string | null, message: string | null) => code === null ? null : { code, message }

/**
 * The one ordered story of a message, told by the messages API, the dashboard and nobody else
 * (every caller goes through here). Our own steps on our clock: `queued` (a queued send's hand-over)
 * or `pending` (a synchronous send's record), `sending` (a queued send taken to be sent), our
 * dispatch's `sent` or `failed`; and every status webhook of the upstream on its clock, its own
 * `sent` included. Two rules make it one story rather than two lists:
 * - no status twice: once the upstream's `sent` is in, it stands for ours (CONTRACT.md 7 lists the
 *   upstream's; both say the same thing);
 * - nothing before what it must follow: the upstream stamps whole seconds, on a clock not ours, so
 *   its `sent` of 12:00:00 may read as earlier than our `pending` of 12:00:00.700. An upstream event
 *   is placed no earlier than the latest of our steps that must precede it (the send it reports on
 *   had started; `delivered`, `read` and `failed` also follow our `sent`), which is its own time to
 *   the precision it was given. Ties go by the life's order (queued, sending, sent, delivered,
 *   read, other statuses, failed), then by arrival.
 * A failed step of ours keeps its error only while the record is still failed (a send presumed
 * interrupted and later reported delivered was not a failure); a record failed by a step that wrote
 * no time of its own (cancelled, opted out, …) still shows its failure, at its last change.
 */
export function messageHistory (record: HistoryFields, events: readonly UpstreamEvent[]): HistoryStep[] {
  const ours: HistoryStep[] = []
  const own = (status: string, at: Date, error: HistoryStep['error'] = null) => ours.push({ status, at, error, source: 'gateway', pricing: null, receivedAt: at })
  const wasQueued = record.queuedAt !== null || record.sendingAt !== null || record.status === 'queued'
  own(wasQueued ? 'queued' : 'pending', record.queuedAt ?? record.createdAt)
  if (record.sendingAt) own('sending', record.sendingAt)
  const upstreamSent = events.some(event => event.status === 'sent')
  if (record.sentAt && !upstreamSent) own('sent', record.sentAt)
  const failedError = record.status === 'failed' ? errorOf(record.errorCode, record.errorText) : null
  if (record.failedAt) own('failed', record.failedAt, failedError)
  else if (record.status === 'failed' && !events.some(event => event.status === 'failed')) own('failed', record.updatedAt, failedError)

  const theirs = events.map((event): HistoryStep => {
    const rank = rankOf(event.status)
    // the latest of our steps it must follow (our `failed` precedes nothing: a presumed failure may be proved wrong)
    const floor = Math.max(...ours.filter(step => step.status !== 'failed' && rankOf(step.status) < rank).map(step => step.at.getTime()))
    const at = Math.max(event.upstreamTimestamp.getTime(), floor)
    return { status: event.status, at: new Date(at), error: errorOf(event.errorCode, event.errorText), source: 'upstream', pricing: event.pricingCategory ?? null, receivedAt: event.receivedAt }
  })

  return [...ours, ...theirs].sort((a, b) =>
    a.at.getTime() - b.at.getTime() || rankOf(a.status) - rankOf(b.status) || a.receivedAt.getTime() - b.receivedAt.getTime())
}

/** A history as the messages API gives it (CONTRACT.md 7). */
export function historyView (steps: readonly HistoryStep[]) {
  return steps.map(step => ({ status: step.status, at: step.at.toISOString(), error: step.error }))
}
