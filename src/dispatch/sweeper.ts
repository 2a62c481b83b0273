import type { FastifyBaseLogger } from 'fastify'
import { faultLog } from '../faults/fault-log.js'
import type { DispatcherStore } from '../store/dispatchers.js'

export interface SweeperOptions {
  store: DispatcherStore
  /** this process in the `dispatchers` table */
  dispatcherId: string
  /** UPSTREAM_TIMEOUT_MS + DISPATCH_DEADLINE_MS: the longest a dispatch can take */
  boundMs: number
  /** the records this process is still working on (dispatching, or writing their outcome) */
  busy (): string[]
  log: FastifyBaseLogger
}

/**
 * Proves that no record stays in flight (CONTRACT.md 12): every few seconds, this process's records
 * still `pending` or `sending` past the longest a dispatch can take, and no longer worked on here,
 * end failed `outcome_unknown` (something lost their outcome: whether they went out is unknown; a
 * later status webhook moves them forward). Records of processes that died are the lease's (lease.ts).
 */
export function startSweeper (options: SweeperOptions): { stop (): void } {
  const log = faultLog(options.log, 'sweeping records in flight')
  const everyMs = Math.min(5000, Math.max(250, Math.floor(options.boundMs / 8)))
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  async function sweep (): Promise<void> {
    try {
      const settled = await options.store.settleLost(options.dispatcherId, options.boundMs, options.busy())
      log.succeeded()
      if (settled > 0) options.log.warn({ count: settled }, 'records in flight past the longest a send can take ended failed (outcome_unknown)')
    } catch (error) {
      log.failed(error)
    }
    if (!stopped) timer = setTimeout(() => { void sweep() }, everyMs).unref()
  }
  timer = setTimeout(() => { void sweep() }, everyMs).unref()
  return {
    stop () {
      stopped = true
      clearTimeout(timer)
    }
  }
}
