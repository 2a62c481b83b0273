import { setTimeout as sleep } from 'node:timers/promises'
import { isRetryLater } from '../faults/classify.js'
import { faultWaitMs } from '../faults/retry.js'
import type { AcquireOptions, Pacer, Permit, SendTicket } from '../pacer/types.js'
import type { SendResult } from '../upstream/types.js'
import type { Run } from './in-flight.js'
import { isThroughputRefusal, retryDelay, throttledDelay } from './retry.js'
import { QueuedSendLeft } from './stop.js'

export interface AttemptPlan {
  pacer: Pacer
  ticket: SendTicket
  lane?: AcquireOptions['lane']
  /** epoch ms */
  deadline: number
  maxAttempts: number
  run: Run
  /** Runs once, when the first slot is granted, just before the first call: false means the send is off (QueuedSendLeft `withdrawn`). */
  claim?: () => Promise<boolean>
  /**
   * A dependency that fails for now (src/faults: Redis behind the pacer, the database behind the
   * claim) is waited out until the deadline rather than ending the send: a queued send never ends
   * because a dependency blinked (CONTRACT.md 12). A live send answers 503 at once instead.
   */
  waitOutFaults?: boolean
  send (): Promise<SendResult>
}

export type Outcome =
  | { ok: true, result: SendResult, attempts: number }
  /** error: what ended it — before any attempt the reason nothing was sent, after one the last upstream error */
  | { ok: false, error: unknown, attempts: number }

/**
 * Every attempt takes its slot from the pacer; a failure known to be transient is tried again after
 * a backoff, while attempts and the deadline allow. Once a call is under way only its answer, its
 * timeout or shutdown ends it: the deadline and the client leaving stop waits, never a send.
 */
export async function attemptUntilDone (plan: AttemptPlan): Promise<Outcome> {
  const { run } = plan
  let attempts = 0
  let lastError: unknown
  let claimed = plan.claim === undefined
  let faults = 0
  // calls the upstream refused for the number's throughput (a queued send's: they spend no attempt)
  let throttled = 0
  for (;;) {
    let permit: Permit
    try {
      run.signal.throwIfAborted()
      permit = await plan.pacer.acquire(plan.ticket, { deadline: plan.deadline, signal: run.signal, retry: attempts > 0, lane: plan.lane })
      if (!claimed) claimed = await claimWith(plan.claim!, permit)
    } catch (error) {
      if (plan.waitOutFaults && isRetryLater(error) && await pause(faultWaitMs(faults++), run.signal)) continue
      if (error instanceof QueuedSendLeft) return { ok: false, error, attempts }
      return { ok: false, error: attempts > 0 ? lastError : run.signal.aborted ? run.signal.reason : error, attempts }
    }
    faults = 0
    attempts += 1
    const call = plan.send()
    const done = () => permit.done()
    void call.then(done, done)
    try {
      return { ok: true, result: await Promise.race([call, run.abandoned]), attempts }
    } catch (error) {
      lastError = error
    }
    // A queued send (ordinary or a campaign's) the upstream refused for its number's throughput was
    // not sent (130429): it spends no attempt and goes again at a later slot, until its deadline
    // (CONTRACT.md 9, 15). A synchronous send keeps its attempts: its client is waiting.
    if (plan.lane !== undefined && plan.lane !== 'live' && isThroughputRefusal(lastError)) {
      throttled += 1
      const delay = throttledDelay(lastError, throttled)
      if (Date.now() + delay >= plan.deadline) return { ok: false, error: lastError, attempts }
      // stopped while every call was refused: nothing went out, as if never attempted (a shutdown gives it back to its queue)
      if (!await pause(delay, run.signal)) return attempts === throttled ? { ok: false, error: run.signal.reason, attempts: 0 } : { ok: false, error: lastError, attempts }
      continue
    }
    const delay = retryDelay(lastError, attempts - throttled, plan.maxAttempts)
    if (delay === undefined || Date.now() + delay >= plan.deadline) return { ok: false, error: lastError, attempts }
    if (!await pause(delay, run.signal)) return { ok: false, error: lastError, attempts }
  }
}

/** The claim, on a granted slot: a slot not used for a call is given back. */
async function claimWith (claim: () => Promise<boolean>, permit: Permit): Promise<true> {
  let claimed = false
  try {
    claimed = await claim()
  } finally {
    if (!claimed) permit.done()
  }
  if (!claimed) throw new QueuedSendLeft('withdrawn')
  return true
}

/** Waits, unless the run is stopped first: whether it waited. */
async function pause (ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
