import { setTimeout as sleep } from 'node:timers/promises'
import { isRetryLater } from './classify.js'
import type { Waits } from './waits.js'

// soon at first, then every second: within 5 s of a dependency's return (CONTRACT.md 12)
const WAIT_MS = [100, 250, 500, 1000]

/** The wait before look `tries + 1` at a dependency that blinked, jittered so that many waiters do not return in step. */
export function faultWaitMs (tries: number): number {
  return WAIT_MS[Math.min(tries, WAIT_MS.length - 1)] * (0.75 + Math.random() / 2)
}

/**
 * Runs `work` until it succeeds, as long as what fails it is a dependency blinking (src/faults) and
 * `withinMs` has not passed; anything else, or the last blip, is thrown. For small writes that must
 * land (a job's completion, an attempt given back) rather than be redone from scratch.
 */
export async function untilItLands<T> (work: () => Promise<T>, withinMs: number, waits?: Waits): Promise<T> {
  const deadline = Date.now() + withinMs
  for (let tries = 0; ; tries++) {
    try {
      return await work()
    } catch (error) {
      const waitMs = faultWaitMs(tries)
      if (!isRetryLater(error) || Date.now() + waitMs > deadline || waits?.stopped === true) throw error
      const waited = waits ? await waits.wait(waitMs) : await sleep(waitMs, true)
      if (!waited) throw error
    }
  }
}
