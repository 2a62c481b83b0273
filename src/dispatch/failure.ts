import { AppError, databaseUnavailable, limitsUnavailable, serviceUnavailable } from '../errors.js'
import { classify } from '../faults/classify.js'
import { PacerRefusal } from '../pacer/types.js'
import { INTERRUPTED_TEXT } from '../store/dispatchers.js'
import { UpstreamError } from '../upstream/errors.js'
import { DispatchStopped } from './stop.js'

/** How a failed send is written on its record and answered to the caller. */
export interface SendFailure {
  /** the upstream's numeric code as a string, or ours (upstream_timeout, dispatch_timeout, …) */
  errorCode: string
  errorText: string
  /** whether an upstream call was made */
  attempted: boolean
  response: Error
}

const MESSAGES = {
  timeout: 'The upstream did not answer in time; the message may or may not have been sent',
  unreachable: 'The upstream could not be reached; nothing was sent',
  lost: 'The connection to the upstream broke after the message was sent; its outcome is unknown',
  invalid: 'The upstream accepted the message without a usable message id; its outcome is unknown (a later status webhook settles it)'
} as const

/**
 * What ended a dispatch, as its record and its answer: see attempts.ts for what `error` can be.
 * `attempts`: upstream calls made; none means nothing was sent, whatever stopped it.
 */
export function dispatchFailure (error: unknown, attempts: number, deadlineCode: 'dispatch_timeout' | 'expired' = 'dispatch_timeout'): SendFailure {
  const failure = error instanceof PacerRefusal
    ? refusalFailure(error)
    : error instanceof DispatchStopped ? stoppedFailure(error) : attempts === 0 ? notAttempted(error) : sendFailure(error)
  // A queued send's deadline is its expiry (QUEUE_MAX_AGE_MS): the record says so.
  if (failure.errorCode === 'dispatch_timeout' && deadlineCode === 'expired') return { ...failure, errorCode: 'expired', errorText: 'Not sent: the message expired in the queue (QUEUE_MAX_AGE_MS)' }
  return failure
}

export function sendFailure (error: unknown): SendFailure {
  if (!(error instanceof UpstreamError)) {
    // an upstream call ended in something unforeseen: whether it went out is unknown. The error's
    // own text stays out of the record (it may carry a dependency's message, or content).
    return { errorCode: 'outcome_unknown', errorText: 'The send ended with an unexpected error after the upstream call began; it may or may not have been sent', attempted: true, response: new AppError(502, 'outcome_unknown', 'The send ended with an unexpected error; the message may or may not have been sent') }
  }
  const { code, detail } = error.details
  const errorText = detail && !error.message.includes(detail) ? `${error.message}: ${detail}` : error.message
  if (error.kind !== 'rejected') {
    return { errorCode: error.envelopeCode, errorText, attempted: true, response: new AppError(502, error.envelopeCode, MESSAGES[error.kind]) }
  }
  return {
    errorCode: code !== undefined ? String(code) : error.envelopeCode,
    errorText,
    attempted: true,
    response: new AppError(502, 'upstream_error', `The upstream refused the message: ${errorText}`,
      code !== undefined ? { upstream: { code, message: error.message } } : {})
  }
}

/** Stopped before any upstream call: a dependency that blinked (src/faults) is a 503 to retry, anything else our own failure. */
function notAttempted (error: unknown): SendFailure {
  const fault = classify(error)
  if (fault?.retry === 'later' && fault.dependency === 'redis') return notSent('limits_unavailable', 'the shared rate limits were unavailable (Redis unreachable)', limitsUnavailable())
  if (fault?.retry === 'later' && fault.dependency === 'database') return notSent('database_unavailable', 'the database was unavailable', databaseUnavailable())
  return { errorCode: 'internal_error', errorText: 'Not sent: an internal error stopped the send before any upstream call', attempted: false, response: error as Error }
}

function notSent (errorCode: string, errorText: string, response: AppError): SendFailure {
  return { errorCode, errorText: `Not sent: ${errorText}`, attempted: false, response }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

function refusalFailure (refusal: PacerRefusal): SendFailure {
  const retryAfter = seconds(refusal.retryAfterMs)
  if (refusal.reason === 'queue_full') {
    return notSent('queue_full', refusal.message, serviceUnavailable('queue_full', `Too many messages are waiting for this number; nothing was sent, retry in ${retryAfter} s`, retryAfter))
  }
  if (refusal.reason === 'closed') return stoppedFailure(new DispatchStopped('shutdown'))
  return notSent('dispatch_timeout', refusal.message, serviceUnavailable('dispatch_timeout', `The message could not be dispatched in time (${refusal.message}); nothing was sent`, retryAfter))
}

function stoppedFailure (stop: DispatchStopped): SendFailure {
  if (stop.reason === 'deadline') {
    return notSent('dispatch_timeout', 'the dispatch deadline passed while it waited for pacing', serviceUnavailable('dispatch_timeout', 'The message could not be dispatched before its deadline; nothing was sent'))
  }
  if (stop.reason === 'cancelled') {
    return notSent('cancelled', 'the client went away while it waited for pacing', serviceUnavailable('dispatch_timeout', 'The request was cancelled before the message was sent; nothing was sent'))
  }
  return notSent('interrupted', 'the gateway shut down while it waited for pacing', serviceUnavailable('dispatch_timeout', 'The gateway is shutting down; nothing was sent'))
}

/** Shutdown gave up on an upstream call still under way: nobody will know its answer. */
export function abandonedFailure (): SendFailure {
  return { errorCode: 'interrupted', errorText: INTERRUPTED_TEXT, attempted: true, response: new AppError(502, 'upstream_timeout', 'The gateway shut down before the upstream answered; the message may or may not have been sent') }
}
