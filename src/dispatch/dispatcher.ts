import type { FastifyBaseLogger } from 'fastify'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { throughputOf } from '../pacer/throughput.js'
import { withRecordId } from '../errors.js'
import { PacerRefusal, type Pacer } from '../pacer/types.js'
import type { Connection } from '../store/connections.js'
import type { MessageRecord, MessageStore } from '../store/messages.js'
import type { UpstreamClient } from '../upstream/client.js'
import { attemptUntilDone, type Outcome } from './attempts.js'
import { abandonedFailure, dispatchFailure } from './failure.js'
import type { InFlight } from './in-flight.js'
import { DispatchStopped, QueuedSendLeft } from './stop.js'

export interface DispatchDeps {
  upstream: UpstreamClient
  messages: MessageStore
  cipher: TokenCipher
  log: FastifyBaseLogger
  pacer: Pacer
  inFlight: InFlight
  /** this process in the `dispatchers` table */
  dispatcherId: string
  limits: { maxAttempts: number, deadlineMs: number, throughputMps?: number }
}

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
   * deadline is its expiry. Rejects with QueuedSendLeft when the record was left as it was.
   */
  queued?: { claim (): Promise<boolean> }
}

export type Dispatch = (record: MessageRecord, options: DispatchOptions) => Promise<{ wamid: string }>

/**
 * Sends a pending record upstream, paced and retried (attempts.ts), and ends it `sent` or `failed`.
 * Rejects with the error to answer: 502 for the upstream's failure, 503 when nothing could be sent.
 */
export function createDispatcher (deps: DispatchDeps): Dispatch {
  async function paced (record: MessageRecord, options: DispatchOptions, deadline: number): Promise<Outcome> {
    const run = deps.inFlight.start({ deadline, signal: options.signal, yieldsToShutdown: options.queued !== undefined })
    try {
      const { queued } = options
      if (!queued && record.dispatcherId !== deps.dispatcherId) await deps.messages.claim(record.id, deps.dispatcherId)
      const token = deps.cipher.decrypt(options.connection.accessToken)
      let claimed = !queued
      return await attemptUntilDone({
        pacer: deps.pacer,
        ticket: { numberId: record.phoneNumberId, recipient: record.recipient, mps: throughputOf(options.throughputLevel, deps.limits.throughputMps) },
        lane: queued ? 'queued' : 'live',
        deadline,
        maxAttempts: deps.limits.maxAttempts,
        run,
        send: async () => {
          if (!claimed && !(claimed = await queued!.claim())) throw new QueuedSendLeft('withdrawn')
          return await deps.upstream.sendMessage(record.phoneNumberId, token, record.payload as Record<string, unknown>)
        }
      })
    } catch (error) {
      return { ok: false, error, attempts: 0 }
    } finally {
      run.finish()
    }
  }

  return async function dispatch (record, options) {
    const outcome = await paced(record, options, options.deadline ?? Date.now() + deps.limits.deadlineMs)
    if (outcome.ok) {
      await deps.messages.markSent(record.id, { wamid: outcome.result.wamid, attempts: outcome.attempts })
      deps.log.info({ messageId: record.id, wamid: outcome.result.wamid, attempts: outcome.attempts }, 'message sent')
      return { wamid: outcome.result.wamid }
    }
    if (options.queued) leftAsItWas(outcome)
    const abandoned = outcome.attempts > 0 && outcome.error instanceof DispatchStopped
    const failure = abandoned ? abandonedFailure() : dispatchFailure(outcome.error, options.queued ? 'expired' : 'dispatch_timeout')
    await deps.messages.markFailed(record.id, { errorCode: failure.errorCode, errorText: failure.errorText, attempts: outcome.attempts })
    deps.log.warn({ messageId: record.id, errorCode: failure.errorCode, attempts: outcome.attempts, error: failure.errorText }, 'message failed')
    throw withRecordId(failure.response, record.id)
  }
}

/** A queued send that never went out because of shutdown goes back to its queue; one withdrawn meanwhile is someone else's to record. */
function leftAsItWas (outcome: Outcome & { ok: false }): void {
  if (outcome.error instanceof QueuedSendLeft) throw outcome.error
  const shutdown = (outcome.error instanceof DispatchStopped && outcome.error.reason === 'shutdown') ||
    (outcome.error instanceof PacerRefusal && outcome.error.reason === 'closed')
  if (outcome.attempts === 0 && shutdown) throw new QueuedSendLeft('requeue')
}
