const WINDOW_MS = 1000

interface Waiter { wake (): void, signal?: AbortSignal, onAbort (): void, priority: number }

/**
 * The sends of one number that the upstream may be counting in its sliding second. The upstream
 * counts a send when it arrives, which is some time between our letting it go and its answer: a
 * busy event loop or network can hold sends back for seconds and then deliver them together with
 * later ones. So a send counts from its slot until one second after its answer, and no more than
 * the limit may count at once. The slots are spaced by number-slots.ts; this only holds sends
 * back when earlier ones were delayed on their way.
 */
export class ArrivalWindow {
  #inFlight = 0
  /** answer times (performance.now) of the last second, oldest first */
  #answered: number[] = []
  #waiters: Waiter[] = []
  #timer: NodeJS.Timeout | undefined

  constructor (readonly limit: number) {}

  /** Counts one more send if the window has room for it. */
  tryEnter (): boolean {
    if (this.#count(performance.now()) >= this.limit) return false
    this.#inFlight += 1
    return true
  }

  /** Resolves once the window may have room again; rejects with the signal's reason if it aborts first. Higher priorities are woken first. */
  async untilRoom (signal?: AbortSignal, priority = 0): Promise<void> {
    signal?.throwIfAborted()
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        wake: resolve,
        signal,
        priority,
        onAbort: () => {
          this.#waiters = this.#waiters.filter(other => other !== waiter)
          reject(signal?.reason)
        }
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      const after = this.#waiters.findIndex(other => other.priority < priority)
      if (after === -1) this.#waiters.push(waiter)
      else this.#waiters.splice(after, 0, waiter)
      this.#wake()
    })
  }

  /** The send was answered (or failed): the upstream has counted it by now, if it ever will. */
  answered (): void {
    this.#inFlight -= 1
    this.#answered.push(performance.now())
    this.#wake()
  }

  /** The send did not go after all. */
  cancel (): void {
    this.#inFlight -= 1
    this.#wake()
  }

  get idle (): boolean {
    return this.#inFlight === 0 && this.#waiters.length === 0 && this.#count(performance.now()) === 0
  }

  #count (now: number): number {
    let expired = 0
    while (expired < this.#answered.length && now - this.#answered[expired] >= WINDOW_MS) expired++
    if (expired > 0) this.#answered.splice(0, expired)
    return this.#inFlight + this.#answered.length
  }

  /** Wakes as many waiters as there is room for (they take it through tryEnter); times the next room. */
  #wake (): void {
    const now = performance.now()
    for (let room = this.limit - this.#count(now); room > 0 && this.#waiters.length > 0; room--) {
      const waiter = this.#waiters.shift()!
      waiter.signal?.removeEventListener('abort', waiter.onAbort)
      waiter.wake()
    }
    if (this.#waiters.length > 0 && this.#answered.length > 0 && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined
        this.#wake()
      }, Math.max(1, Math.ceil(WINDOW_MS - (now - this.#answered[0]))))
    }
  }
}
