import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../db/client.js'
import { faultCode, isRetryLater } from '../faults/classify.js'
import { faultLog } from '../faults/fault-log.js'
import { faultWaitMs, untilItLands } from '../faults/retry.js'
import { createBatcher } from '../store/batcher.js'
import { jobSql, type Job } from '../store/jobs.js'
import type { MessageRecord } from '../store/messages.js'
import type { QueueDrainerStore } from '../store/queue-drainers.js'
import { QUEUED_SENDS, type QueuedSendStore } from '../store/queued-sends.js'
import { CAMPAIGN_SENDS } from '../store/campaigns.js'

/** The campaigns' part of a number's drain (src/campaigns/lane.ts): their messages go in the room ordinary queued sends leave. */
export interface CampaignFeed {
  /** Makes up to `want` more of the number's campaign recipients into queued messages; `live`: some campaign of the number still has work. */
  feed (numberId: string, want: number): Promise<{ live: boolean, made: number }>
}

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
  send (job: Job, record: MessageRecord | undefined): Promise<SendOutcome>
  campaigns?: CampaignFeed
}

/** done: the job is finished; requeue: given back as it was; later: held, to be looked at again then. */
export type SendOutcome = 'done' | 'requeue' | { later: Date }

export interface NumberDrain {
  done: Promise<void>
  /** Leases nothing more; what waits behind its recipient's earlier send goes back to the queue. */
  stop (): void
  jobIds (): number[]
  /** Looks for work now (an ordinary queued send handed over in this process) rather than at its next turn. */
  poke (): void
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
  let poked = false
  const faults = faultLog(deps.log, 'queued sends')
  const complete = createBatcher(async (ids: number[]) => {
    await jobSql.complete(deps.db, ids, deps.worker)
    return ids.map(() => undefined)
  }, { maxBatch: 500 })

  function start (job: Job, record: MessageRecord | undefined): void {
    const key = record?.recipient ?? `job:${job.id}`
    const run: Promise<void> = (pairs.get(key) ?? Promise.resolve()).then(async () => {
      const outcome = await sendWaitingOutFaults(job, record)
      // given back because this process is stopping: lease nothing more (leasing it again would spin until the drain is stopped)
      if (outcome === 'requeue') stopped = true
      // The job's end is retried while the database is away, within its lease (after it another
      // process may hold the job): a send that went out during an outage is finished as soon as the
      // database answers, not offered again once its lease runs out (CONTRACT.md 12).
      await untilItLands(async () => {
        if (outcome === 'requeue') await jobSql.release(deps.db, [job.id], deps.worker)
        else if (outcome === 'done') await complete(job.id)
        else await jobSql.defer(deps.db, [job.id], deps.worker, outcome.later)
      }, deps.leaseMs)
    }).catch(error => {
      // the job keeps its lease until it runs out; then it is offered again and finds its record as it is
      deps.log.error({ jobId: job.id, code: faultCode(error) }, 'queued send: could not settle its job')
    }).finally(() => {
      active.delete(job.id)
      if (pairs.get(key) === run) pairs.delete(key)
      wake?.()
    })
    pairs.set(key, run)
  }

  /**
   * A dependency that blinks before the send began (the connection lookup, an expiry's write) is
   * waited out here, in the recipient's line, so that nothing behind it overtakes it and nothing
   * ends because of it (CONTRACT.md 12); the dispatch waits out its own (attempts.ts).
   */
  async function sendWaitingOutFaults (job: Job, record: MessageRecord | undefined): Promise<SendOutcome> {
    for (let tries = 0; ; tries++) {
      if (stopped) return 'requeue'
      try {
        return await deps.send(job, record)
      } catch (error) {
        if (!isRetryLater(error)) throw error
        faults.failed(error)
        await sleep(faultWaitMs(tries))
      }
    }
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
    // leased, but their records not read yet (the database failed in between): read before leasing more
    let unread: Job[] = []
    let waitMs = deps.pollMs
    let othersGone = false
    // campaigns: assumed live until a feed says otherwise; fed at most once a poll unless the last feed was full
    let campaignsLive = deps.campaigns !== undefined
    let fedAt = 0
    let fedFull = false
    // ordinary queued sends: when last looked for, whether some were found, whether a hand-over here asked for a look
    let queuedLeasedAt = 0
    let queuedFound = false
    while (!stopped) {
      try {
        if (!othersGone && await deps.drainers.leftByAnother(QUEUED_SENDS, numberId, deps.worker)) {
          await next(deps.pollMs)
          continue
        }
        othersGone = true
        const room = deps.capacity - active.size - unread.length
        // The loop wakes at every send's end; while a campaign keeps the room filled, ordinary
        // queued sends are looked for when poked (a hand-over here), after a lease that found some,
        // or once a poll (another process's hand-over): not in an empty lease per campaign message.
        const lookForQueued = !campaignsLive || poked || queuedFound || Date.now() - queuedLeasedAt >= deps.pollMs
        if (lookForQueued && (room >= minBatch || (active.size === 0 && unread.length === 0 && room > 0))) {
          poked = false
          queuedLeasedAt = Date.now()
          const queuedJobs = await jobSql.lease(deps.db, QUEUED_SENDS, { worker: deps.worker, leaseMs: deps.leaseMs, limit: room, groupKey: numberId })
          queuedFound = queuedJobs.length > 0
          unread.push(...queuedJobs)
        }
        // The campaign lane (CONTRACT.md 15): only the room ordinary queued sends left, so one handed
        // over now is leased ahead of every campaign message not yet leased.
        // Campaign messages leave a quarter of the capacity free: a queued send handed over is leased at once.
        const left = deps.capacity - minBatch - active.size - unread.length
        if (deps.campaigns && campaignsLive && left > 0 && (left >= minBatch || (active.size === 0 && unread.length === 0))) {
          const campaignJobs = await jobSql.lease(deps.db, CAMPAIGN_SENDS, { worker: deps.worker, leaseMs: deps.leaseMs, limit: left, groupKey: numberId })
          unread.push(...campaignJobs)
          if (campaignJobs.length < left && (fedFull || Date.now() - fedAt >= deps.pollMs)) {
            const fed = await deps.campaigns.feed(numberId, deps.capacity)
            campaignsLive = fed.live
            fedAt = Date.now()
            fedFull = fed.made >= deps.capacity
          }
        } else if (deps.campaigns && !campaignsLive && Date.now() - fedAt >= deps.pollMs * 4) {
          // a campaign resumed or started while this number's drain was busy with other work
          campaignsLive = true
        }
        const leased = unread
        const records = await deps.queuedSends.byIds(leased.map(job => job.payload.toString('utf8')))
        unread = []
        faults.succeeded()
        const byId = new Map(records.map(record => [record.id, record]))
        for (const job of leased) {
          active.set(job.id, job)
          start(job, byId.get(job.payload.toString('utf8')))
        }
        if (leased.length === 0 && active.size === 0 && !campaignsLive) break
        waitMs = fedFull ? 0 : leased.length > 0 && leased.length < room ? deps.pollMs : deps.pollMs * 4
      } catch (error) {
        if (!isRetryLater(error)) throw error
        faults.failed(error)
        waitMs = Math.min(Math.max(waitMs * 2, deps.pollMs), 1000)
      }
      if (stopped) break
      await next(waitMs)
    }
    if (unread.length > 0) await jobSql.release(deps.db, unread.map(job => job.id), deps.worker).catch(() => {})
    await Promise.allSettled([...pairs.values()])
  }

  const done = loop().catch(error => {
    deps.log.error({ code: faultCode(error) }, 'queued sends: a number\'s drain failed')
  })
  return {
    done: done.then(async () => { await Promise.allSettled([...pairs.values()]) }),
    stop () {
      stopped = true
      wake?.()
    },
    jobIds: () => [...active.keys()],
    poke () {
      poked = true
      wake?.()
    }
  }
}
