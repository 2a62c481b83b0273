/**
 * How an upstream call ended when it did not succeed. The kind decides retries: only failures
 * known not to have sent anything, or that the upstream marks transient, may be tried again.
 */
export type UpstreamFailureKind =
  | 'rejected'     // the upstream answered with an error
  | 'unreachable'  // nothing was sent: connection refused, DNS, connect timeout
  | 'timeout'      // sent, no answer in time: the outcome is unknown
  | 'lost'         // sent, connection dropped before a full answer: the outcome is unknown
  | 'invalid'      // a 2xx without a usable message id (message-id.ts): the outcome is unknown

// Codes that describe a passing condition (upstream-facts.md 2.3, class R). 131048 and 131049
// clear only after hours, so retrying within a request's deadline would just fail again.
export const TRANSIENT_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131056, 131057, 133004])
// Cloud API message throughput reached (per phone number): refused, nothing sent (upstream-facts.md 2.3, 3.1).
const THROUGHPUT_REACHED = 130429

export class UpstreamError extends Error {
  constructor (
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly details: {
      httpStatus?: number
      code?: number
      subcode?: number
      type?: string
      detail?: string
      fbtraceId?: string
      retryAfterMs?: number
    } = {}
  ) {
    super(message)
  }

  /** The upstream refused the call for its number's throughput (130429): nothing was sent. */
  get throughputReached (): boolean {
    return this.kind === 'rejected' && this.details.code === THROUGHPUT_REACHED
  }

  /** Worth another attempt: nothing was sent, or the upstream said the condition is temporary. */
  get transient (): boolean {
    if (this.kind === 'unreachable') return true
    if (this.kind !== 'rejected') return false
    const { code, httpStatus = 0 } = this.details
    if (code !== undefined) return TRANSIENT_CODES.has(code)
    return httpStatus === 429 || httpStatus >= 500
  }

  /** The envelope code the gateway answers with (CONTRACT.md section 2). */
  get envelopeCode (): 'upstream_error' | 'upstream_timeout' | 'upstream_unavailable' | 'upstream_invalid_response' | 'outcome_unknown' {
    if (this.kind === 'timeout') return 'upstream_timeout'
    if (this.kind === 'unreachable') return 'upstream_unavailable'
    if (this.kind === 'invalid') return 'upstream_invalid_response'
    if (this.kind === 'lost') return 'outcome_unknown'
    return 'upstream_error'
  }
}

/** Retry-After as seconds or an HTTP date, in milliseconds. */
export function parseRetryAfter (value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
