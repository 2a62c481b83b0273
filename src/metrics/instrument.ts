import type { Counter, Histogram } from 'prom-client'
import type { Dispatch } from '../dispatch/dispatcher.js'
import { AppError } from '../errors.js'
import type { Pacer } from '../pacer/types.js'

/** The pacer, timing each wait for a slot. */
export function timedPacer (pacer: Pacer, wait: Histogram): Pacer {
  return {
    async acquire (ticket, options) {
      const end = wait.startTimer()
      try { return await pacer.acquire(ticket, options) } finally { end() }
    },
    close () { pacer.close() }
  }
}

/** Dispatch, counting each send's outcome with the upstream's error code (or ours: upstream_timeout, queue_full, …). */
export function countedDispatch (dispatch: Dispatch, sends: Counter): Dispatch {
  return async (record, options) => {
    try {
      const sent = await dispatch(record, options)
      sends.inc({ outcome: 'sent', code: '' })
      return sent
    } catch (error) {
      const upstream = error instanceof AppError ? error.extra.upstream?.code : undefined
      const code = upstream != null ? String(upstream) : error instanceof AppError ? error.code : 'internal'
      sends.inc({ outcome: 'failed', code })
      throw error
    }
  }
}
