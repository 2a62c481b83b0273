import type { FastifyBaseLogger } from 'fastify'
import { faultCode } from '../faults/classify.js'
import { faultLog } from '../faults/fault-log.js'
import type { DispatcherStore } from '../store/dispatchers.js'

export interface LeaseOptions {
  store: DispatcherStore
  /** this process's id in the `dispatchers` table */
  id: string
  leaseMs: number
  /** the database admits one process (embedded): every other process's pending record is orphaned */
  singleProcess: boolean
  log: FastifyBaseLogger
}

export interface Lease { stop (): Promise<void> }

/**
 * Registers this process, interrupts what dead processes left pending (at once, then at every
 * renewal), and renews the lease every third of its length so a process that is merely busy keeps it.
 */
export async function startLease (options: LeaseOptions): Promise<Lease> {
  const { store, id, leaseMs, log } = options
  await store.renew(id, leaseMs)
  report(await store.interruptOrphans(id, { leaseMs, allOthers: options.singleProcess }), log)

  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const faults = faultLog(log, 'renewing the dispatcher lease')
  let renewal: Promise<void> = Promise.resolve()
  // A process cut off from the database cannot tell a dead process from one cut off like itself:
  // after an outage it lets a whole lease pass, time for every live process to renew, before it
  // interrupts anyone else's records.
  let reachableSince = 0
  async function renew (): Promise<void> {
    try {
      await store.renew(id, leaseMs)
      if (faults.blinking) reachableSince = Date.now()
      if (Date.now() - reachableSince >= leaseMs) report(await store.interruptOrphans(id, { leaseMs }), log)
      faults.succeeded()
    } catch (error) {
      faults.failed(error)
    }
    if (!stopped) timer = setTimeout(() => { renewal = renew() }, leaseMs / 3).unref()
  }
  timer = setTimeout(() => { renewal = renew() }, leaseMs / 3).unref()

  return {
    async stop () {
      stopped = true
      clearTimeout(timer)
      await renewal
      try {
        const left = await store.interruptOwn(id)
        if (left > 0) log.warn({ count: left, dispatcherId: id }, 'marked the messages this process could not finish as interrupted')
        await store.remove(id)
      } catch (error) {
        // the lease then runs out by itself, and another process (or the next start) interrupts what is left
        log.error({ code: faultCode(error), dispatcherId: id }, 'could not release the dispatcher lease')
      }
    }
  }
}

function report (count: number, log: FastifyBaseLogger): void {
  if (count > 0) log.warn({ count }, 'marked messages left pending by a stopped gateway process as interrupted')
}
