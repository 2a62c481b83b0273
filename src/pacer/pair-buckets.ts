export interface PairRate {
  /** tokens a full bucket holds (PAIR_RATE_BURST) */
  burst: number
  /** one token comes back every this many ms (PAIR_RATE_INTERVAL_MS) */
  intervalMs: number
}

interface Bucket {
  tokens: number
  /** when `tokens` was last brought up to date */
  at: number
  /** messages that were told a token is theirs and have not sent yet */
  claims: number
  /** sends not answered yet: the bucket does not refill meanwhile */
  sending: number
}

// Our refill runs a little slower than the upstream's (2% plus 20 ms): its clock and ours need not
// run alike, and a token that comes back a moment early would be refused.
const REFILL_MARGIN = 0.02
const REFILL_SLACK_MS = 20

/** How often a bucket gains a token on our side: the upstream's interval with the margin. */
export function pairRefillMs (rate: PairRate): number {
  return rate.intervalMs * (1 + REFILL_MARGIN) + REFILL_SLACK_MS
}

/**
 * The pair rate limit as the upstream applies it: a token bucket per (number, recipient). A token
 * is spent when the message actually goes (commit), not when it starts waiting: a message can
 * wait for its number's slot after its pair token came due. Claims stand for messages between
 * the two, so each newcomer queues behind them. The upstream takes the token when the send
 * arrives, some time before its answer, so the bucket stays still until the answer: refilling
 * from a later moment than the upstream's never leaves us with more tokens than it has.
 */
export class PairBuckets {
  readonly #burst: number
  readonly #refillMs: number
  #buckets = new Map<string, Bucket>()
  #answerWaiters = new Map<string, Set<() => void>>()

  constructor (rate: PairRate) {
    this.#burst = rate.burst
    this.#refillMs = pairRefillMs(rate)
  }

  /** Registers a claim; returns how long from now until a token can be the claimant's. */
  reserve (key: string, now: number): number {
    const bucket = this.#current(key, now)
    bucket.claims += 1
    const short = bucket.claims - bucket.tokens
    return short <= 0 ? 0 : Math.ceil(short * this.#refillMs)
  }

  /** Spends a token for a claim now being sent; false when the bucket fell short (the claim stands). */
  commit (key: string, now: number): boolean {
    const bucket = this.#current(key, now)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    bucket.claims -= 1
    bucket.sending += 1
    return true
  }

  /** Whether a token is there now, or else whether it only waits for answers (the bucket is held). */
  state (key: string, now: number): 'token' | 'held' | 'empty' {
    const bucket = this.#current(key, now)
    return bucket.tokens >= 1 ? 'token' : bucket.sending > 0 ? 'held' : 'empty'
  }

  /** A committed send was answered (or failed): the refill resumes from now. */
  answered (key: string, now: number): void {
    const bucket = this.#buckets.get(key)
    if (!bucket) return
    bucket.sending -= 1
    bucket.at = now
    const waiters = this.#answerWaiters.get(key)
    this.#answerWaiters.delete(key)
    waiters?.forEach(wake => wake())
  }

  /** Resolves at the pair's next answer; rejects with the signal's reason if it aborts first. */
  async untilAnswered (key: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted()
    await new Promise<void>((resolve, reject) => {
      const waiters = this.#answerWaiters.get(key) ?? new Set()
      this.#answerWaiters.set(key, waiters)
      const onAbort = () => {
        waiters.delete(wake)
        if (waiters.size === 0 && this.#answerWaiters.get(key) === waiters) this.#answerWaiters.delete(key)
        reject(signal?.reason)
      }
      const wake = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      waiters.add(wake)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** A claim given up: its message is not sent. */
  release (key: string): void {
    const bucket = this.#buckets.get(key)
    if (bucket && bucket.claims > 0) bucket.claims -= 1
  }

  /** Drops full buckets nobody claims: a full bucket is what a new one would be. */
  sweep (now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.claims === 0 && bucket.sending === 0 && this.#refilled(bucket, now) >= this.#burst) this.#buckets.delete(key)
    }
  }

  get size (): number {
    return this.#buckets.size
  }

  #current (key: string, now: number): Bucket {
    let bucket = this.#buckets.get(key)
    if (!bucket) this.#buckets.set(key, bucket = { tokens: this.#burst, at: now, claims: 0, sending: 0 })
    bucket.tokens = this.#refilled(bucket, now)
    bucket.at = now
    return bucket
  }

  #refilled (bucket: Bucket, now: number): number {
    if (bucket.sending > 0) return bucket.tokens
    return Math.min(this.#burst, bucket.tokens + Math.max(0, now - bucket.at) / this.#refillMs)
  }
}
