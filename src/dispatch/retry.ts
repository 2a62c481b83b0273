import { UpstreamError } from '../upstream/errors.js'

const BASE_MS = 200
const CAP_MS = 5000
const THROTTLE_BASE_MS = 100
const THROTTLE_CAP_MS = 1000

/**
 * How long to wait before the next attempt, or undefined when there must be none: the failure is
 * not known to be transient (an unknown outcome never is), or the attempts are spent. Exponential
 * backoff with full jitter; the upstream's Retry-After is a minimum.
 */
export function retryDelay (error: unknown, attempts: number, maxAttempts: number, random = Math.random): number | undefined {
  if (!(error instanceof UpstreamError) || !error.transient || attempts >= maxAttempts) return undefined
  const backoff = random() * Math.min(CAP_MS, BASE_MS * 2 ** (attempts - 1))
  return Math.max(backoff, error.details.retryAfterMs ?? 0)
}

/** The upstream's refusal for the number's throughput (130429): nothing was sent. */
export function isThroughputRefusal (error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.throughputReached
}

/**
 * The upstream counts a number's sends over a sliding second: a refused message waits a jittered
 * part of it (longer after each refusal, at most that second, at least any Retry-After) before it
 * takes the number's next slot again, so refusals do not spin at the pacer's rate.
 */
export function throttledDelay (error: UpstreamError, refusals: number, random = Math.random): number {
  const backoff = Math.min(THROTTLE_CAP_MS, THROTTLE_BASE_MS * 2 ** (refusals - 1))
  return Math.max(backoff / 2 + random() * backoff / 2, error.details.retryAfterMs ?? 0)
}
