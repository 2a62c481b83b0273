import { UpstreamError } from '../upstream/errors.js'

const BASE_MS = 200
const CAP_MS = 5000

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
