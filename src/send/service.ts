import { claimRefused, type Stage } from '../audience/decide.js'
import type { Dispatch, DispatchOptions } from '../dispatch/dispatcher.js'
import type { Withdrawals } from '../dispatch/withdrawals.js'
import { fingerprint } from '../idempotency/fingerprint.js'
import { KeyHeld } from '../idempotency/held.js'
import { withFilePlaceholder } from '../media/one-call.js'
import type { SpooledFile } from '../media/intake.js'
import { composeMessage } from '../messages/compose.js'
import { pendingMessage } from '../messages/payload.js'
import type { SendMessageBody } from '../messages/schemas.js'
import type { ActiveConnection, Connection, PhoneNumber } from '../store/connections.js'
import type { IdempotencyKeyStore } from '../store/idempotency-keys.js'
import type { KeyToTake, MessageRecord, MessageStore, PendingMessage } from '../store/messages.js'
import { SlotRefused } from '../store/messaging-limit.js'
import type { Template } from '../store/templates.js'
import { ask, askAgain, type Answer, type QuestionDeps } from './question.js'
import type { Reservation } from './reservation.js'

/** One message to send, from the API or the dashboard (CONTRACT.md 2, 6). */
export interface SendRequest {
  body: SendMessageBody
  workspaceId: string
  /** null: the dashboard sent it */
  apiKeyId: string | null
  active: ActiveConnection
  sender: PhoneNumber
  /** a one-call send's file part (CONTRACT.md 13) */
  file?: SpooledFile
  /** Prefer: respond-async (CONTRACT.md 9) */
  queued: boolean
  /** the request's Idempotency-Key (CONTRACT.md 8); `messageId` is set once its record is written */
  idempotency?: { key: string, messageId?: string }
  /** epoch ms the request arrived: the time spent on checks and the record is part of the dispatch deadline */
  arrivedAt: number
  /** the client went away */
  signal: AbortSignal
}

export type Sent =
  | { status: 'sent', record: MessageRecord, wamid: string, mediaId?: string }
  | { status: 'queued', record: MessageRecord, mediaId?: string }

export interface SendDeps extends QuestionDeps {
  templatesNamed (connection: Connection, name: string): Promise<Template[]>
  /** a user id the upstream has since replaced: its successor (CONTRACT.md 16) */
  currentUserId (workspaceId: string, recipient: string): Promise<string>
  messages: Pick<MessageStore, 'create'>
  keys: Pick<IdempotencyKeyStore, 'held'>
  /** a queued send's record and job (ASYNC_QUEUE_LIMIT); null when its key is held */
  handOver (message: PendingMessage, key?: KeyToTake): Promise<MessageRecord | null>
  /** a one-call send's file uploaded: the record's payload with its media id */
  upload (request: SendRequest, pending: PendingMessage, file: SpooledFile): Promise<{ pending: PendingMessage, mediaId: string }>
  withdrawals: Pick<Withdrawals, 'createOrWithdraw'>
  dispatch: Dispatch
  dispatcherId: string
  /** a record reached the upstream (the read-receipt policy: CONTRACT.md 19); must not throw */
  sent?(record: MessageRecord): void
  idempotencyTtlMs: number
  deadlineMs: number
}

export type SendService = ReturnType<typeof createSendService>

/**
 * The one way a message is sent (docs/decisions/040-one-send.md): composed, asked the one question,
 * written by one store call, then dispatched (or handed over to the queue), its messaging-limit
 * slot held by a Reservation from the verdict to the outcome.
 */
export function createSendService (deps: SendDeps) {
  async function message (request: SendRequest): Promise<Sent> {
    const { workspaceId, active, sender } = request
    // a file part stands in for media_id until it is uploaded (CONTRACT.md 13)
    const composed = await composeMessage(withFilePlaceholder(request.body, request.file?.file), name => deps.templatesNamed(active.connection, name))
    const message = { ...composed, recipient: await deps.currentUserId(workspaceId, composed.recipient) }
    // a keyed send takes its slot with its verdict: its record's statement takes the key instead
    const stage: Stage = request.queued ? 'hand-over' : request.idempotency ? 'send' : 'record'
    const answer = await ask(deps, message, { workspaceId, active, phoneNumberId: sender.phoneNumberId }, stage)
    if (answer.go === 'refuse' || (answer.go === 'hold' && stage !== 'hand-over')) throw answer.error
    const reservation = answer.go === 'send' ? answer.reservation : undefined
    const first = { ...pendingMessage(message, { id: request.apiKeyId ?? '', workspaceId }, sender, request.body.client_reference), apiKeyId: request.apiKeyId }
    const key = request.idempotency && { key: request.idempotency.key, fingerprint: fingerprint(first), ttlMs: deps.idempotencyTtlMs }
    const steps = async () => {
      const { pending, mediaId } = await uploaded(request, first, key)
      return { mediaId, record: request.queued ? await handOver(request, pending, key) : await written(request, pending, key, reservation) }
    }
    const { record, mediaId } = reservation ? await reservation.until(steps) : await steps()
    if (request.queued) return { status: 'queued', record, mediaId }
    const { wamid } = await dispatch(record, reservation, {
      connection: active.connection,
      throughputLevel: sender.throughputLevel,
      deadline: request.arrivedAt + deps.deadlineMs,
      signal: request.signal
    })
    return { status: 'sent', record, wamid, mediaId }
  }

  /** A one-call send's file, uploaded unless its key is held already (then nothing is uploaded). */
  async function uploaded (request: SendRequest, pending: PendingMessage, key: KeyToTake | undefined): Promise<{ pending: PendingMessage, mediaId?: string }> {
    if (!request.file) return { pending }
    if (key && await deps.keys.held(request.workspaceId, key.key)) throw new KeyHeld(key.fingerprint)
    return await deps.upload(request, pending, request.file)
  }

  // a write whose outcome is unknown (the database blinked) is withdrawn: the 503 then tells the truth
  async function handOver (request: SendRequest, pending: PendingMessage, key: KeyToTake | undefined): Promise<MessageRecord> {
    return recorded(request, await deps.withdrawals.createOrWithdraw(pending.id, async () => await deps.handOver(pending, key)), key)
  }

  /** The record of a send made now: the claim's slot taken in its statement, or the key (the slot was taken by the verdict). */
  async function written (request: SendRequest, pending: PendingMessage, key: KeyToTake | undefined, reservation: Reservation | undefined): Promise<MessageRecord> {
    const claim = reservation?.claim
    const created = await deps.withdrawals.createOrWithdraw(pending.id, async () => await deps.messages.create({ ...pending, dispatcherId: deps.dispatcherId }, key ? { key } : { claim }))
      .catch((error: unknown) => { throw error instanceof SlotRefused && claim ? claimRefused(claim, error.nextSlotAt) : error })
    if (claim && created) reservation?.took(created.slot)
    return recorded(request, created?.record ?? null, key)
  }

  /** The record written; none: its key is held by another record, and the request is answered from it. */
  function recorded (request: SendRequest, record: MessageRecord | null, key: KeyToTake | undefined): MessageRecord {
    if (!record) throw new KeyHeld(key?.fingerprint ?? '')
    if (request.idempotency) request.idempotency.messageId = record.id
    return record
  }

  /** Dispatch holding the reservation: released when nothing went out, kept otherwise. */
  async function dispatch (record: MessageRecord, reservation: Reservation | undefined, options: Omit<DispatchOptions, 'reservation'>): Promise<{ wamid: string }> {
    const sent = await deps.dispatch(record, { ...options, reservation })
    deps.sent?.(record)
    return sent
  }

  return {
    message,
    /** The drain's question for a queued record (src/messages/queue.ts). */
    again: async (record: MessageRecord, active: ActiveConnection): Promise<Answer> => await askAgain(deps, record, active),
    /** The drain's dispatch of a queued record that may go. */
    dispatch
  }
}
