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

// An idle poller looks less and less often, doubling up to this: work enqueued in this process wakes
// its poller at once, so the polls only find another process's work, retries come due and leases
// that ran out. At the embedded default, the idle polls (inbox, outbox, queued sends) were 7% of a core.
export const IDLE_POLL_MAX_MS = 1000

/** The delays of a poller: its interval while it finds work, doubling up to IDLE_POLL_MAX_MS while it finds none. */
export function idlePolls (pollMs: number) {
  let delayMs = pollMs
  return {
    /** the delay before the next look */
    get delayMs (): number { return delayMs },
    /** the delay before the next look, after one that found work or not */
    after (foundWork: boolean): number {
      delayMs = foundWork ? pollMs : Math.min(delayMs * 2, Math.max(pollMs, IDLE_POLL_MAX_MS))
      return delayMs
    },
    /** back to the interval (a wake: there is work) */
    reset (): void {
      delayMs = pollMs
    }
  }
}
