import { setTimeout as sleep } from 'node:timers/promises'
import { DispatchStopped } from './stop.js'

export interface Run {
  /** aborts at the deadline, when the client goes away, or at shutdown: stops waiting, never a send */
  signal: AbortSignal
  /** rejects when shutdown gives up on the run, also in the middle of an upstream call */
  abandoned: Promise<never>
  finish (): void
}

interface Entry { controller: AbortController, abandon (): void, done: Promise<void>, yieldsToShutdown: boolean }

// After the grace, the runs told to stop only have their record to write.
const SETTLE_MS = 2000
const MAX_TIMER_MS = 2 ** 31 - 1

/** The dispatches under way in this process, so that shutdown can let them finish, then stop them. */
export class InFlight {
  #runs = new Set<Entry>()
  #closing = false

  get closing (): boolean {
    return this.#closing
  }

  get size (): number {
    return this.#runs.size
  }

  /** `yieldsToShutdown`: a queued send, whose wait shutdown stops at once (it goes back to its queue) rather than after the grace. */
  start (options: { deadline: number, signal?: AbortSignal, yieldsToShutdown?: boolean }): Run {
    const controller = new AbortController()
    const stop = (reason: DispatchStopped) => { if (!controller.signal.aborted) controller.abort(reason) }
    // a queued send's deadline may lie beyond what a timer holds (2^31 - 1 ms): such a wait is not cut short
    const deadline = setTimeout(() => stop(new DispatchStopped('deadline')), Math.min(MAX_TIMER_MS, Math.max(0, options.deadline - Date.now())))
    const clientGone = () => stop(new DispatchStopped('cancelled'))
    options.signal?.addEventListener('abort', clientGone, { once: true })
    if (options.signal?.aborted) clientGone()
    if (this.#closing) stop(new DispatchStopped('shutdown'))

    let abandon!: () => void
    const abandoned = new Promise<never>((_resolve, reject) => { abandon = () => reject(new DispatchStopped('shutdown')) })
    abandoned.catch(() => {})
    let finished!: () => void
    const entry: Entry = { controller, abandon, done: new Promise(resolve => { finished = resolve }), yieldsToShutdown: options.yieldsToShutdown === true }
    this.#runs.add(entry)
    return {
      signal: controller.signal,
      abandoned,
      finish: () => {
        clearTimeout(deadline)
        options.signal?.removeEventListener('abort', clientGone)
        this.#runs.delete(entry)
        finished()
      }
    }
  }

  /** Refuses new runs, lets the current ones finish within the grace, then stops and abandons the rest. */
  async drain (graceMs: number): Promise<void> {
    this.#closing = true
    // An abort stops waits only: a queued send's upstream call under way still has the grace.
    for (const entry of this.#runs) if (entry.yieldsToShutdown) entry.controller.abort(new DispatchStopped('shutdown'))
    if (await this.#settled(graceMs)) return
    for (const entry of this.#runs) {
      entry.controller.abort(new DispatchStopped('shutdown'))
      entry.abandon()
    }
    await this.#settled(SETTLE_MS)
  }

  async #settled (withinMs: number): Promise<boolean> {
    if (this.#runs.size === 0) return true
    const timeout = new AbortController()
    const all = Promise.all([...this.#runs].map(entry => entry.done)).then(() => true)
    const late = sleep(withinMs, false, { signal: timeout.signal }).catch(() => false)
    try {
      return await Promise.race([all, late])
    } finally {
      timeout.abort()
    }
  }
}
