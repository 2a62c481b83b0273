import { setTimeout as sleep } from 'node:timers/promises'
import { NumberSlots } from './number-slots.js'
import { PairBuckets, type PairRate } from './pair-buckets.js'
import { PacerRefusal, type AcquireOptions, type Pacer, type Permit, type SendTicket } from './types.js'

export interface LocalPacerOptions {
  /** messages that may wait per sending number (QUEUE_LIMIT) */
  queueLimit: number
  pairRate: PairRate
}

const SWEEP_EVERY_MS = 30_000

/**
 * The in-process pacer: per number a strict sliding window (number-slots.ts), per (number,
 * recipient) a token bucket (pair-buckets.ts). A message first waits for its pair token to come
 * due, then for its number's slot, and spends the token when the slot is granted; the permit's
 * `done` tells both when the upstream has answered.
 */
export function createLocalPacer (options: LocalPacerOptions): Pacer {
  const slots = new NumberSlots()
  const pairs = new PairBuckets(options.pairRate)
  const waiting = new Map<string, number>()
  let closed = false
  const sweeper = setInterval(function sweep () {
    slots.sweep()
    pairs.sweep(performance.now())
  }, SWEEP_EVERY_MS).unref()

  function enter (ticket: SendTicket): void {
    const count = waiting.get(ticket.numberId) ?? 0
    if (count >= options.queueLimit) {
      throw new PacerRefusal('queue_full', `${count} messages are already waiting to be sent from this number`, count / ticket.mps * 1000)
    }
    waiting.set(ticket.numberId, count + 1)
  }

  function leave (ticket: SendTicket): void {
    const count = (waiting.get(ticket.numberId) ?? 1) - 1
    if (count <= 0) waiting.delete(ticket.numberId)
    else waiting.set(ticket.numberId, count)
  }

  /** A permit, or undefined when the pair's token was not back in time and the wait starts over. */
  async function slotAndToken (ticket: SendTicket, acquire: AcquireOptions): Promise<Permit | undefined> {
    const pairKey = `${ticket.numberId}:${ticket.recipient}`
    let committed = false
    try {
      const pairWait = pairs.reserve(pairKey, performance.now())
      const wait = pairWait + slots.expectedWaitMs(ticket.numberId, ticket.mps, acquire.lane)
      const late = Date.now() + wait - acquire.deadline
      // Known already: waiting would only end in the same refusal, later.
      if (late > 0) throw new PacerRefusal('deadline', `the message could not be sent within its deadline: the pacing wait is ${Math.ceil(wait)} ms`, late)
      if (pairWait > 0) await sleep(pairWait, undefined, { signal: acquire.signal })
      const pair = pairs.state(pairKey, performance.now())
      if (pair !== 'token') {
        // The pair's last sends are not answered yet: its bucket only refills once they are.
        if (pair === 'held') await pairs.untilAnswered(pairKey, acquire.signal)
        return undefined
      }
      const slot = await slots.take(ticket.numberId, ticket.mps, { signal: acquire.signal, priority: acquire.retry ? 1 : 0, lane: acquire.lane })
      committed = pairs.commit(pairKey, performance.now())
      if (!committed) {
        slot.cancel()
        return undefined
      }
      let done = false
      return {
        done () {
          if (done) return
          done = true
          slot.answered()
          pairs.answered(pairKey, performance.now())
        }
      }
    } finally {
      if (!committed) pairs.release(pairKey)
    }
  }

  return {
    async acquire (ticket, acquire) {
      if (closed) throw new PacerRefusal('closed', 'the gateway is shutting down')
      // campaign messages count against no QUEUE_LIMIT (CONTRACT.md 15): their drain lets only about a second's worth wait here
      const counted = acquire.lane !== 'campaign'
      if (counted) enter(ticket)
      try {
        for (;;) {
          const permit = await slotAndToken(ticket, acquire)
          if (permit) return permit
        }
      } catch (error) {
        throw acquire.signal?.aborted ? acquire.signal.reason : error
      } finally {
        if (counted) leave(ticket)
      }
    },

    close () {
      closed = true
      clearInterval(sweeper)
    }
  }
}
