import type { Slot } from '../store/messaging-limit.js'
import type { Verdict } from './decide.js'

export type GiveBack = (slot: Slot) => Promise<void>

/** The slot a `send` verdict took anew, if any. */
export const slotOf = (verdict: Verdict): Slot | undefined => verdict.go === 'send' ? verdict.slot : undefined

/**
 * The steps between a send's verdict and its dispatch (its log record, a media upload): when they
 * throw, or end the request without a send (undefined: answered from its Idempotency-Key), the
 * messaging-limit slot the verdict took is given back (CONTRACT.md 14: a send that never went out
 * reached nobody). From the dispatch on, the dispatcher gives it back.
 */
export async function untilDispatch<T> (giveBack: GiveBack, slot: Slot | undefined, steps: () => Promise<T | undefined>): Promise<T | undefined> {
  if (!slot) return await steps()
  let result: T | undefined
  try {
    result = await steps()
  } catch (error) {
    await giveBack(slot)
    throw error
  }
  if (result === undefined) await giveBack(slot)
  return result
}
