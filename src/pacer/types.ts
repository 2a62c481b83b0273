/**
 * The pacer's seam. The dispatcher calls `Pacer.acquire` before each upstream attempt, tells the
 * permit when the attempt's call ended, and calls `close` at shutdown. local-pacer.ts keeps its
 * state in this process, which is right for one process; redis-pacer.ts keeps the same counts in
 * Redis for several (REDIS_URL). Nothing outside src/pacer depends on how slots are counted.
 */
export interface SendTicket {
  /** the upstream phone number id: one throughput budget per number */
  numberId: string
  /** digits only: one pair bucket per (number, recipient) */
  recipient: string
  /** the number's throughput, messages per second (throughput.ts) */
  mps: number
}

export interface AcquireOptions {
  /** epoch ms: a grant that cannot come before it is refused, at once when that is already known */
  deadline: number
  /** aborts the wait; the rejection is the signal's reason */
  signal?: AbortSignal
  /** a retry: it has waited once already, so it goes ahead of first attempts */
  retry?: boolean
  /**
   * `live` (default): someone waits for the answer, so it takes its number's next free slot ahead
   * of every `queued` send (CONTRACT.md 9); queued sends use the slots live ones leave, and
   * `campaign` sends the slots both leave (CONTRACT.md 15).
   */
  lane?: 'live' | 'queued' | 'campaign'
}

/** Leave to send one message now. */
export interface Permit {
  /** The upstream call ended (answer, error or timeout): the upstream has counted it by now, if ever. */
  done (): void
}

export interface Pacer {
  /** Resolves when one message may go upstream now; rejects with a PacerRefusal or the abort reason. */
  acquire (ticket: SendTicket, options: AcquireOptions): Promise<Permit>
  /** Refuses new waits and frees timers; waits in progress must be aborted by their owners first. */
  close (): void
}

export type RefusalReason = 'queue_full' | 'deadline' | 'closed'

/** Nothing was sent: the message could not get a slot in time, or the wait list was full. */
export class PacerRefusal extends Error {
  constructor (readonly reason: RefusalReason, message: string, readonly retryAfterMs = 1000) {
    super(message)
  }
}
