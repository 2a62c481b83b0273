import type { FastifyBaseLogger } from 'fastify'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { throughputOf } from '../pacer/throughput.js'
import { withRecordId } from '../errors.js'
import type { Pacer } from '../pacer/types.js'
import type { Connection } from '../store/connections.js'
import type { MessageRecord, MessageStore } from '../store/messages.js'
import type { UpstreamClient } from '../upstream/client.js'
import { attemptUntilDone, type Outcome } from './attempts.js'
import { abandonedFailure, dispatchFailure } from './failure.js'
import type { InFlight } from './in-flight.js'
import { DispatchStopped } from './stop.js'

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
}

export type Dispatch = (record: MessageRecord, options: DispatchOptions) => Promise<{ wamid: string }>

/**
 * Sends a pending record upstream, paced and retried (attempts.ts), and ends it `sent` or `failed`.
 * Rejects with the error to answer: 502 for the upstream's failure, 503 when nothing could be sent.
 */
export function createDispatcher (deps: DispatchDeps): Dispatch {
  async function paced (record: MessageRecord, options: DispatchOptions, deadline: number): Promise<Outcome> {
    const run = deps.inFlight.start({ deadline, signal: options.signal })
    try {
      if (record.dispatcherId !== deps.dispatcherId) await deps.messages.claim(record.id, deps.dispatcherId)
      const token = deps.cipher.decrypt(options.connection.accessToken)
      return await attemptUntilDone({
        pacer: deps.pacer,
        ticket: { numberId: record.phoneNumberId, recipient: record.recipient, mps: throughputOf(options.throughputLevel, deps.limits.throughputMps) },
        deadline,
        maxAttempts: deps.limits.maxAttempts,
        run,
        send: async () => await deps.upstream.sendMessage(record.phoneNumberId, token, record.payload as Record<string, unknown>)
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
    const abandoned = outcome.attempts > 0 && outcome.error instanceof DispatchStopped
    const failure = abandoned ? abandonedFailure() : dispatchFailure(outcome.error)
    await deps.messages.markFailed(record.id, { errorCode: failure.errorCode, errorText: failure.errorText, attempts: outcome.attempts })
    deps.log.warn({ messageId: record.id, errorCode: failure.errorCode, attempts: outcome.attempts, error: failure.errorText }, 'message failed')
    throw withRecordId(failure.response, record.id)
  }
}
