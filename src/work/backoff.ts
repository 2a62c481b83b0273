const BASE_MS = 1000
const MAX_MS = 5 * 60_000

/** The default delay before the next attempt: doubling from 1 s up to 5 min, with full jitter so a burst of failures does not retry in step. */
export function exponentialBackoff (attempt: number): number {
  const ceiling = Math.min(MAX_MS, BASE_MS * 2 ** Math.max(0, attempt - 1))
  return Math.round(ceiling / 2 + Math.random() * ceiling / 2)
}

/** A fixed schedule (such as WEBHOOK_RETRY_SCHEDULE_MS): the delay after the attempt-th failure. */
export function scheduleBackoff (delaysMs: number[]): (attempt: number) => number {
  return attempt => delaysMs[Math.min(attempt, delaysMs.length) - 1] ?? delaysMs[delaysMs.length - 1] ?? BASE_MS
}
