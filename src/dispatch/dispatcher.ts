import type { FastifyBaseLogger } from 'fastify'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { throughputOf } from '../pacer/throughput.js'
import { withRecordId } from '../errors.js'
import { PacerRefusal, type Pacer } from '../pacer/types.js'
import type { Connection } from '../store/connections.js'
import { isWamidTaken, type MessageRecord, type MessageStore } from '../store/messages.js'
import type { UpstreamClient } from '../upstream/client.js'
import { UpstreamError } from '../upstream/errors.js'
import { attemptUntilDone, type Outcome } from './attempts.js'
import { abandonedFailure, dispatchFailure, sendFailure, type SendFailure } from './failure.js'
import type { InFlight } from './in-flight.js'
import type { OutcomeWriter } from './outcomes.js'
import { DispatchStopped, QueuedSendLeft } from './stop.js'

export interface DispatchDeps {
  upstream: UpstreamClient
  messages: MessageStore
  cipher: TokenCipher
  log: FastifyBaseLogger
  pacer: Pacer
  inFlight: InFlight
  /** writes each outcome, retrying in the background what the database refused */
  outcomes: OutcomeWriter
  /** the records this process is dispatching now: the sweeper leaves them be */
  inHand: Set<string>
  /** this process in the `dispatchers` table */
  dispatcherId: string
  limits: { maxAttempts: number, deadlineMs: number, throughputMps?: number }
  /** after a failure is written: what the upstream's refusal means beyond this message (an opt-out, a paused template) */
  afterFailure?: (record: MessageRecord, errorCode: string) => Promise<void>
}

/** A send's messaging-limit slot (src/send/reservation.ts): released when nothing went out, kept otherwise. */
export interface HeldSlot { release (): Promise<void>, keep (): void }

export interface DispatchOptions {
  /** the sending number's connection: its access token authorises the send */
  connection: Connection
  /** the sending number's `throughputLevel`, as the caller resolved the number (request.sender has it) */
  throughputLevel: string | null
  /** epoch ms by which the message must have gone upstream; default now + DISPATCH_DEADLINE_MS */
  deadline?: number
  /** the caller went away: a message still waiting is not sent (record `cancelled`); a send under way goes on */
  signal?: AbortSignal
  /**
   * A queued send (CONTRACT.md 9): paced behind live sends; `claim` runs once its first slot is
   * granted, just before the upstream call, and false means it is no longer to be sent. Its
   * deadline is its expiry; a dependency that blinks is waited out. Rejects with QueuedSendLeft
   * when the record was left as it was.
   */
  queued?: { claim (): Promise<boolean>, lane?: 'campaign' }
  /** the send's messaging-limit slot: released when nothing reached a recipient (CONTRACT.md 14), kept otherwise */
  reservation?: HeldSlot
}

export type Dispatch = (record: MessageRecord, options: DispatchOptions) => Promise<{ wamid: string }>

const ANOTHER_MESSAGES_ID = 'The upstream accepted the message with the message id of another message; its outcome is unknown'

/**
 * Sends a pending record upstream, paced and retried (attempts.ts), and ends it `sent` or `failed`.
 * Rejects with the error to answer: 502 for the upstream's failure or an unknown outcome, 503 when
 * nothing was sent. Once the upstream accepted, it resolves with the wamid whatever the database
 * does: the record's write is retried until it lands (outcomes.ts).
 */
export function createDispatcher (deps: DispatchDeps): Dispatch {
  async function paced (record: MessageRecord, options: DispatchOptions, deadline: number): Promise<Outcome> {
    const { queued } = options
    const run = deps.inFlight.start({ deadline, signal: options.signal, yieldsToShutdown: queued !== undefined })
    try {
      if (!queued && record.dispatcherId !== deps.dispatcherId) await deps.messages.claim(record.id, deps.dispatcherId)
      const token = deps.cipher.decrypt(options.connection.accessToken)
      return await attemptUntilDone({
        pacer: deps.pacer,
        ticket: { numberId: record.phoneNumberId, recipient: record.recipient, mps: throughputOf(options.throughputLevel, deps.limits.throughputMps) },
        lane: queued ? queued.lane ?? 'queued' : 'live',
        deadline,
        maxAttempts: deps.limits.maxAttempts,
        run,
        claim: queued?.claim,
        waitOutFaults: queued !== undefined,
        send: async () => await deps.upstream.sendMessage(record.phoneNumberId, token, record.payload as Record<string, unknown>)
      })
    } catch (error) {
      return { ok: false, error, attempts: 0 }
    } finally {
      run.finish()
    }
  }

  async function failed (record: MessageRecord, failure: SendFailure, attempts: number, bulk: boolean): Promise<never> {
    await deps.outcomes.write(record.id, async () => {
      await deps.messages.markFailed(record.id, { errorCode: failure.errorCode, errorText: failure.errorText, attempts }, bulk)
    })
    deps.log.warn({ messageId: record.id, errorCode: failure.errorCode, attempts }, 'message failed')
    await deps.afterFailure?.(record, failure.errorCode).catch(error => {
      deps.log.warn({ messageId: record.id, errorCode: failure.errorCode, err: (error as Error).message }, 'could not apply what the refusal means for the audience rules')
    })
    throw withRecordId(failure.response, record.id)
  }

  /** `bulk`: a queued send's outcome, written in the bulk line (src/store/messages.ts) */
  async function sent (record: MessageRecord, wamid: string, attempts: number, bulk: boolean): Promise<{ wamid: string }> {
    try {
      await deps.outcomes.write(record.id, async () => { await deps.messages.markSent(record.id, { wamid, attempts }, bulk) }, isWamidTaken)
    } catch {
      // the wamid names another of our messages: not a usable id, and whether this one went out is unknown
      return await failed(record, sendFailure(new UpstreamError('invalid', ANOTHER_MESSAGES_ID)), attempts, bulk)
    }
    deps.log.info({ messageId: record.id, wamid, attempts }, 'message sent')
    return { wamid }
  }

  return async function dispatch (record, options) {
    deps.inHand.add(record.id)
    try {
      const outcome = await paced(record, options, options.deadline ?? Date.now() + deps.limits.deadlineMs)
      const bulk = options.queued !== undefined
      if (!outcome.ok && wentNowhere(outcome)) await options.reservation?.release()
      else options.reservation?.keep()
      if (outcome.ok) return await sent(record, outcome.result.wamid, outcome.attempts, bulk)
      if (options.queued) leftAsItWas(outcome)
      const abandoned = outcome.attempts > 0 && outcome.error instanceof DispatchStopped
      const failure = abandoned ? abandonedFailure() : dispatchFailure(outcome.error, outcome.attempts, options.queued ? 'expired' : 'dispatch_timeout')
      return await failed(record, failure, outcome.attempts, bulk)
    } finally {
      deps.inHand.delete(record.id)
    }
  }
}

/**
 * Nothing reached a recipient: no upstream call was made, or the upstream refused the message (an
 * unknown outcome, a timeout or a broken connection may have sent it, and keeps its slot).
 */
function wentNowhere (outcome: Outcome & { ok: false }): boolean {
  if (outcome.attempts === 0) return true
  return outcome.error instanceof UpstreamError && (outcome.error.kind === 'rejected' || outcome.error.kind === 'unreachable')
}

/** A queued send that never went out because of shutdown goes back to its queue; one withdrawn meanwhile is someone else's to record. */
function leftAsItWas (outcome: Outcome & { ok: false }): void {
  if (outcome.error instanceof QueuedSendLeft) throw outcome.error
  const shutdown = (outcome.error instanceof DispatchStopped && outcome.error.reason === 'shutdown') ||
    (outcome.error instanceof PacerRefusal && outcome.error.reason === 'closed')
  if (outcome.attempts === 0 && shutdown) throw new QueuedSendLeft('requeue')
}
