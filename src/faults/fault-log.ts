import type { FastifyBaseLogger } from 'fastify'
import { classify, faultCode } from './classify.js'

export interface FaultLog {
  /** A round of background work failed: a dependency's blip is logged once per outage, anything else every time. */
  failed (error: unknown): void
  /** A round succeeded: says so once after an outage. */
  succeeded (): void
  /** whether the last round failed because a dependency blinked: pollers then look less often */
  readonly blinking: boolean
}

/** The log of a poller that runs every few hundred milliseconds: an outage is one line, not one per round. Codes only, never messages. */
export function faultLog (log: FastifyBaseLogger, what: string): FaultLog {
  let blinking = false
  return {
    failed (error) {
      const fault = classify(error)
      if (fault?.retry !== 'later') {
        log.error({ code: faultCode(error) }, `${what} failed`)
        return
      }
      if (!blinking) log.warn({ dependency: fault.dependency, code: fault.code }, `${what}: ${fault.dependency} unavailable; retrying until it answers`)
      blinking = true
    },
    succeeded () {
      if (blinking) log.info(`${what}: recovered`)
      blinking = false
    },
    get blinking () { return blinking }
  }
}
