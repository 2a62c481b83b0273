import PQueue from 'p-queue'
import { ArrivalWindow } from './arrival-window.js'
import { windowFor } from './throughput.js'

interface NumberQueue {
  queue: PQueue
  window: ArrivalWindow
  mps: number
  ratePerMs: number
  intervalCap: number
  lastUsed: number
  /** queued and campaign messages waiting in `queue` */
  queuedWaiting: number
  /** slots live sends took ahead of the queue, owed back by the queued and campaign messages granted next */
  lent: number
}

// A queue keeps its recent starts for one window after it empties: dropping it sooner would let a
// new queue start a full slice at once beside the old one's.
const IDLE_EVICTION_MS = 5000

function noop (): void {}

// ahead of retries (1) and first attempts (0): these gave their slot to a live send and wait for the next
const RESPACED = 2
// Every queued send's priority is below every live one's, so a live send takes the next free slot (CONTRACT.md 9).
const QUEUED_LANE = -10
// and every campaign message's below every queued send's (CONTRACT.md 15)
const CAMPAIGN_LANE = -20

export type Lane = 'live' | 'queued' | 'campaign'

/** A granted slot of a number: say when its send ended, or that it did not go. */
export interface NumberSlot { answered (): void, cancel (): void }

/**
 * One p-queue per sending number in strict (sliding-window) mode spaces the sends; its tasks do
 * nothing: a task starting is the grant, so the upstream call runs outside the queue and a slow
 * upstream never holds the queue. The number's ArrivalWindow then makes sure sends delayed on
 * their way cannot add up past the limit; a send it holds back goes at its next room.
 */
export class NumberSlots {
  #queues = new Map<string, NumberQueue>()

  /** Resolves with the number's next free slot; rejects with the signal's reason if it aborts first. */
  async take (numberId: string, mps: number, options: { signal?: AbortSignal, priority?: number, lane?: Lane }): Promise<NumberSlot> {
    const entry = this.#entry(numberId, mps)
    const lane = options.lane === 'queued' ? QUEUED_LANE : options.lane === 'campaign' ? CAMPAIGN_LANE : 0
    // A live send while queued or campaign messages fill the number's slices (CONTRACT.md 9, 15):
    // under a steady backlog the slices are granted in bursts, one every interval, and a live send
    // going through the queue would wait up to a whole interval for the next one. It takes the
    // window's next room at once instead, and the slot it used is taken from the first queued or
    // campaign message granted after it (`lent`): the number's paced rate stays what it was, the
    // window keeps its limit, and a live send waits only for room in the window, first in line.
    if (lane === 0 && entry.queuedWaiting > 0 && entry.lent < entry.intervalCap) {
      while (!entry.window.tryEnter()) await entry.window.untilRoom(options.signal, lane)
      entry.lent += 1
      return this.#granted(entry)
    }
    let priority = lane + (options.priority ?? 0)
    for (;;) {
      if (lane < 0) entry.queuedWaiting += 1
      try {
        await entry.queue.add(noop, { signal: options.signal, priority })
      } finally {
        if (lane < 0) entry.queuedWaiting -= 1
      }
      // this slot went to a live send ahead of it: the next one is its own
      if (lane < 0 && entry.lent > 0) {
        entry.lent -= 1
        priority = lane + RESPACED
        continue
      }
      break
    }
    // Held back by the window (earlier sends may still be counted upstream), it keeps the slot it was
    // spaced to and takes the window's next room, first by lane: going through the queue again would
    // spend a second slot on one send (measured: ~4% of a campaign's slices at 1,000/s). Room comes
    // back as earlier sends age out of their second, so sends let go follow those sends' spacing.
    while (!entry.window.tryEnter()) await entry.window.untilRoom(options.signal, lane + (options.priority ?? 0))
    return this.#granted(entry)
  }

  #granted (entry: NumberQueue): NumberSlot {
    entry.lastUsed = Date.now()
    let ended = false
    const end = (how: 'answered' | 'cancel') => () => {
      if (ended) return
      ended = true
      entry.lastUsed = Date.now()
      entry.window[how]()
    }
    return { answered: end('answered'), cancel: end('cancel') }
  }

  /** How long a message joining the number's queue now would wait, at the paced rate: a live one waits only for live ones. */
  expectedWaitMs (numberId: string, mps: number, lane: Lane = 'live'): number {
    const entry = this.#entry(numberId, mps)
    const ahead = lane !== 'live' ? entry.queue.size : Math.max(0, entry.queue.size - entry.queuedWaiting)
    return ahead === 0 ? 0 : (ahead + 1) / entry.ratePerMs
  }

  /** Forgets numbers that have been idle a while, so memory follows the numbers in use. */
  sweep (now = Date.now()): void {
    for (const [numberId, entry] of this.#queues) {
      if (isIdle(entry) && now - entry.lastUsed > IDLE_EVICTION_MS) this.#queues.delete(numberId)
    }
  }

  get size (): number {
    return this.#queues.size
  }

  #entry (numberId: string, mps: number): NumberQueue {
    const existing = this.#queues.get(numberId)
    // A number whose level changed gets a queue at its new rate once the old one has nothing under way.
    if (existing && (existing.mps === mps || !isIdle(existing))) return existing
    const { intervalCap, interval } = windowFor(mps)
    const entry = {
      queue: new PQueue({ concurrency: Number.POSITIVE_INFINITY, intervalCap, interval, strict: true }),
      window: new ArrivalWindow(mps),
      mps,
      ratePerMs: intervalCap / interval,
      intervalCap,
      lastUsed: Date.now(),
      queuedWaiting: 0,
      lent: 0
    }
    this.#queues.set(numberId, entry)
    return entry
  }
}

function isIdle (entry: NumberQueue): boolean {
  return entry.queue.size === 0 && entry.queue.pending === 0 && entry.window.idle
}
