import type { Slot, SlotClaim } from '../store/messaging-limit.js'

/** What frees a slot again: the count, and the oldest send the limit holds woken (plugins/send.ts). */
export type GiveBack = (slot: Slot) => Promise<void>

/**
 * A send's messaging-limit slot (CONTRACT.md 14), from its verdict to its outcome: taken by the
 * verdict (`slot`), or to be taken by the statement that writes its record (`claim`, then `took`).
 * It has one release: a send that never went out reached nobody, so its slot frees again, once
 * however many steps fail. Dispatch releases it or keeps it by the outcome.
 */
export class Reservation {
  #slot: Slot | undefined
  #done = false

  constructor (private readonly giveBack: GiveBack, readonly claim?: SlotClaim, slot?: Slot) {
    this.#slot = slot
  }

  /** where the slot was taken: by the verdict, by the record's insert, or nowhere (free, or no limit) */
  get takenBy (): 'verdict' | 'record' | 'nowhere' {
    if (!this.#slot) return 'nowhere'
    return this.claim ? 'record' : 'verdict'
  }

  /** the record's insert took the claim's slot (undefined: the recipient cost nothing) */
  took (slot: Slot | undefined): void {
    this.#slot = slot
  }

  /** The send went out, or may have: the slot stays spent. */
  keep (): void {
    this.#done = true
  }

  /** The send never went out: the slot frees again (idempotent, best effort: GiveBack logs a failure). */
  async release (): Promise<void> {
    if (this.#done) return
    this.#done = true
    if (this.#slot) await this.giveBack(this.#slot)
  }

  /** Steps before the dispatch (an upload, the record): when one throws, the slot is released. */
  async until<T> (steps: () => Promise<T>): Promise<T> {
    try {
      return await steps()
    } catch (error) {
      await this.release()
      throw error
    }
  }
}
