/**
 * Waits that one call ends all at once (a stop). Not one AbortSignal shared by every wait: an
 * outage leaves hundreds of retries waiting at the same time, each would add a listener to it
 * (MaxListenersExceededWarning, seen in reconnect storms), kept until its wait ends.
 */
export interface Waits {
  /** Waits `ms`: true, or false at once when stopped (before or during the wait). */
  wait (ms: number): Promise<boolean>
  stop (): void
  readonly stopped: boolean
  /** At a shutdown: waits for `work` (retries in the background) for `withinMs` at most, then stops every wait. */
  settle (work: Iterable<Promise<unknown>>, withinMs: number): Promise<void>
}

export function stoppableWaits (): Waits {
  const waiting = new Map<NodeJS.Timeout, (waited: boolean) => void>()
  let stopped = false
  function stop (): void {
    stopped = true
    for (const [timer, resolve] of waiting) { clearTimeout(timer); resolve(false) }
    waiting.clear()
  }
  return {
    async wait (ms) {
      if (stopped) return false
      return await new Promise(resolve => {
        const timer = setTimeout(() => { waiting.delete(timer); resolve(true) }, ms)
        waiting.set(timer, resolve)
      })
    },
    stop,
    get stopped () { return stopped },
    async settle (work, withinMs) {
      const timer = setTimeout(stop, withinMs)
      try {
        await Promise.allSettled(work)
      } finally {
        clearTimeout(timer)
        stop()
      }
    }
  }
}
