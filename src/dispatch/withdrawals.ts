import type { FastifyBaseLogger } from 'fastify'
import { within } from '../../db/gate.js'
import { isRetryLater, faultCode } from '../faults/classify.js'
import { untilItLands } from '../faults/retry.js'
import { stoppableWaits } from '../faults/waits.js'

export interface Withdrawals {
  /**
   * Runs `create` (the write of a send's record, before anything goes upstream). When it fails
   * because the database blinked, whether it committed is unknown (the reply may have been lost
   * after the commit): the caller answers 503 "nothing was sent", so the record, if it exists, is
   * withdrawn (ended failed `database_unavailable`, never sent) in the background until that lands.
   * Without it a queued record whose commit's reply was lost would be sent, and the client's
   * retry of the 503 sent again (CONTRACT.md 12: a 5xx says truly that nothing was sent). Until
   * the withdrawal lands no process sends such a record: it was never confirmed (queued-sends.ts).
   */
  createOrWithdraw<T> (recordId: string, create: () => Promise<T>): Promise<T>
  /** the records being withdrawn: the sweeper leaves them be */
  pending (): string[]
  /** Waits for the withdrawals under way within the time given, then stops retrying them. */
  settle (withinMs: number): Promise<void>
}

// retried for as long as the database is away: a withdrawal given up would let the record be sent
const WITHIN_MS = 24 * 60 * 60_000
// One try's answer is waited for this long: a statement written as its connection died can be left
// unanswered by the driver (seen after a cut: 15 s, until the next cut). The withdrawal is
// idempotent, so it is tried again on a fresh connection.
const TRY_MS = 2_000

export function createWithdrawals (deps: { withdraw (recordId: string): Promise<void>, log: FastifyBaseLogger }): Withdrawals {
  const underWay = new Map<string, Promise<void>>()
  const waits = stoppableWaits()

  function withdraw (recordId: string, cause: unknown): void {
    deps.log.warn({ messageId: recordId, code: faultCode(cause) }, 'a send\'s record write failed with its outcome unknown; withdrawing the record once the database answers')
    const landing = untilItLands(async () => { await within(deps.withdraw(recordId), TRY_MS) }, WITHIN_MS, waits)
      .catch(error => { deps.log.error({ messageId: recordId, code: faultCode(error) }, 'could not withdraw a send\'s record; the sweeper or the queue\'s expiry settles it') })
      .finally(() => underWay.delete(recordId))
    underWay.set(recordId, landing)
  }

  return {
    async createOrWithdraw (recordId, create) {
      try {
        return await create()
      } catch (error) {
        if (isRetryLater(error)) withdraw(recordId, error)
        throw error
      }
    },
    pending: () => [...underWay.keys()],
    settle: async withinMs => { await waits.settle(underWay.values(), withinMs) }
  }
}
