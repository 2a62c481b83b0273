import type { FastifyBaseLogger } from 'fastify'
import { classify, faultCode } from '../faults/classify.js'
import { stoppableWaits } from '../faults/waits.js'

export interface OutcomeWriter {
  /**
   * Writes a send's outcome on its record. Resolves once it is written, or, when the database
   * failed, once the write is handed to the background, where it is retried until it lands: the
   * caller answers the truth at once (CONTRACT.md 12: once the upstream accepted, 200 with the id
   * and wamid whatever the database does). Rejects only with what `final` says is no blip.
   */
  write (recordId: string, write: () => Promise<void>, final?: (error: unknown) => boolean): Promise<void>
  /** the records whose outcome is still being written: not orphans, whatever their age */
  pending (): Set<string>
  /** Waits for the background writes, within the time given; stops retrying them afterwards. */
  settle (withinMs: number): Promise<void>
}

// Retries of a write the database refused: quickly at first, then every two seconds (landed within 2 s of its return).
const RETRY_MS = [100, 250, 500, 1000, 2000]
// An error that is not the database blinking (a bug): tried this many times in all, then left to the sweeper.
const OTHER_ERROR_TRIES = 5

export function createOutcomeWriter (log: FastifyBaseLogger): OutcomeWriter {
  const background = new Map<string, Promise<void>>()
  // every retry's wait, which settle ends all at once
  const waits = stoppableWaits()

  async function untilItLands (recordId: string, write: () => Promise<void>, first: unknown): Promise<void> {
    let error = first
    for (let tries = 1; ; tries++) {
      if (classify(error)?.retry !== 'later' && tries >= OTHER_ERROR_TRIES) {
        log.error({ messageId: recordId, code: faultCode(error) }, 'gave up writing a send\'s outcome; the sweeper settles the record')
        return
      }
      if (!await waits.wait(RETRY_MS[Math.min(tries - 1, RETRY_MS.length - 1)])) {
        log.warn({ messageId: recordId }, 'stopped before a send\'s outcome was written; the status webhook or the next start settles it')
        return
      }
      try {
        await write()
        log.info({ messageId: recordId, tries }, 'a send\'s outcome was written once the database answered again')
        return
      } catch (next) {
        error = next
      }
    }
  }

  return {
    async write (recordId, write, final = () => false) {
      try {
        await write()
      } catch (error) {
        if (final(error)) throw error
        log.warn({ messageId: recordId, code: faultCode(error) }, 'could not write a send\'s outcome; retrying it in the background')
        const retrying = untilItLands(recordId, write, error).finally(() => background.delete(recordId))
        background.set(recordId, retrying)
      }
    },
    pending: () => new Set(background.keys()),
    settle: async withinMs => { await waits.settle(background.values(), withinMs) }
  }
}
