import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../db/client.js'
import { createBatcher } from '../store/batcher.js'
import { jobSql, type Job } from '../store/jobs.js'
import type { MessageRecord } from '../store/messages.js'
import type { QueueDrainerStore } from '../store/queue-drainers.js'
import { QUEUED_SENDS, type QueuedSendStore } from '../store/queued-sends.js'

export interface NumberDrainDeps {
  db: Database
  queuedSends: QueuedSendStore
  drainers: QueueDrainerStore
  worker: string
  leaseMs: number
  pollMs: number
  log: FastifyBaseLogger
  /** records worked on at once: enough to keep the number's rate, few enough that memory stays flat however deep the queue */
  capacity: number
  send (job: Job, record: MessageRecord | undefined): Promise<'done' | 'requeue'>
}

export interface NumberDrain {
  done: Promise<void>
  /** Leases nothing more; what waits behind its recipient's earlier send goes back to the queue. */
  stop (): void
  jobIds (): number[]
}

/**
 * One number's queue in this process: leases its jobs in arrival order, a few at a time as room
 * frees up, and sends each after the previous one to the same recipient has finished (arrival
 * order per pair). Ends when the number's queue is empty.
 */
export function drainNumber (numberId: string, deps: NumberDrainDeps): NumberDrain {
  const active = new Map<number, Job>()
  const pairs = new Map<string, Promise<void>>()
  let stopped = false
  let wake: (() => void) | undefined
  const complete = createBatcher(async (ids: number[]) => {
    await jobSql.complete(deps.db, ids, deps.worker)
    return ids.map(() => undefined)
  }, { maxBatch: 500 })

  function start (job: Job, record: MessageRecord | undefined): void {
    const key = record?.recipient ?? `job:${job.id}`
    const run: Promise<void> = (pairs.get(key) ?? Promise.resolve()).then(async () => {
      const outcome = stopped ? 'requeue' : await deps.send(job, record)
      if (outcome === 'requeue') await jobSql.release(deps.db, [job.id], deps.worker)
      else await complete(job.id)
    }).catch(error => {
      // the job keeps its lease until it runs out; then it is offered again and finds its record as it is
      deps.log.error({ jobId: job.id, err: (error as Error).message }, 'queued send: could not settle its job')
    }).finally(() => {
      active.delete(job.id)
      if (pairs.get(key) === run) pairs.delete(key)
      wake?.()
    })
    pairs.set(key, run)
  }

  async function next (delayMs: number): Promise<void> {
    await new Promise<void>(resolve => {
      const timer = setTimeout(resolve, delayMs)
      wake = () => { clearTimeout(timer); resolve() }
    })
    wake = undefined
  }

  async function loop (): Promise<void> {
    // lease in batches: one claim per quarter of the capacity rather than one per message
    const minBatch = Math.max(1, Math.floor(deps.capacity / 4))
    while (!stopped && await deps.drainers.leftByAnother(QUEUED_SENDS, numberId, deps.worker)) await next(deps.pollMs)
    while (!stopped) {
      const room = deps.capacity - active.size
      let leased: Job[] = []
      if (room >= minBatch || (active.size === 0 && room > 0)) {
        leased = await jobSql.lease(deps.db, QUEUED_SENDS, { worker: deps.worker, leaseMs: deps.leaseMs, limit: room, groupKey: numberId })
        const records = await deps.queuedSends.byIds(leased.map(job => job.payload.toString('utf8')))
        const byId = new Map(records.map(record => [record.id, record]))
        for (const job of leased) {
          active.set(job.id, job)
          start(job, byId.get(job.payload.toString('utf8')))
        }
      }
      if (leased.length === 0 && active.size === 0) break
      if (stopped) break
      await next(leased.length > 0 && leased.length < room ? deps.pollMs : deps.pollMs * 4)
    }
    await Promise.allSettled([...pairs.values()])
  }

  const done = loop().catch(error => {
    deps.log.error({ err: (error as Error).message }, 'queued sends: a number\'s drain failed')
  })
  return {
    done: done.then(async () => { await Promise.allSettled([...pairs.values()]) }),
    stop () {
      stopped = true
      wake?.()
    },
    jobIds: () => [...active.keys()]
  }
}
