import { setTimeout as sleep } from 'node:timers/promises'
import type { AcquireOptions, Pacer, Permit, SendTicket } from '../pacer/types.js'
import type { SendResult } from '../upstream/types.js'
import type { Run } from './in-flight.js'
import { retryDelay } from './retry.js'

export interface AttemptPlan {
  pacer: Pacer
  ticket: SendTicket
  lane?: AcquireOptions['lane']
  /** epoch ms */
  deadline: number
  maxAttempts: number
  run: Run
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
  for (;;) {
    let permit: Permit
    try {
      run.signal.throwIfAborted()
      permit = await plan.pacer.acquire(plan.ticket, { deadline: plan.deadline, signal: run.signal, retry: attempts > 0, lane: plan.lane })
    } catch (error) {
      return { ok: false, error: attempts > 0 ? lastError : error, attempts }
    }
    attempts += 1
    const call = plan.send()
    const done = () => permit.done()
    void call.then(done, done)
    try {
      return { ok: true, result: await Promise.race([call, run.abandoned]), attempts }
    } catch (error) {
      lastError = error
    }
    const delay = retryDelay(lastError, attempts, plan.maxAttempts)
    if (delay === undefined || Date.now() + delay >= plan.deadline) return { ok: false, error: lastError, attempts }
    try {
      await sleep(delay, undefined, { signal: run.signal })
    } catch {
      return { ok: false, error: lastError, attempts }
    }
  }
}
