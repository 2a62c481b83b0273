import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../db/client.js'
import { createBatcher } from '../store/batcher.js'
import { faultCode, isRetryLater } from '../faults/classify.js'
import { faultLog } from '../faults/fault-log.js'
import { faultWaitMs, untilItLands } from '../faults/retry.js'
import { idlePolls } from './backoff.js'
import { groupLeases, type GroupLeases } from './group-leases.js'
import { jobSql, type Job } from './jobs.js'

/** done: the job is finished; requeue: given back as it was (this process is stopping); later: deferred, to run again then (its attempt not counted). */
export type GroupOutcome = 'done' | 'requeue' | { later: Date }

/** A queue behind a group mode's own: its jobs take only the room the first queue leaves, and it is fed more when it runs short. */
export interface LaneBehind {
  queue: string
  /** Makes up to `want` more of the group's jobs in this queue; `live`: the group still has some to make. */
  feed (groupKey: string, want: number): Promise<{ live: boolean, made: number }>
  /** the groups with jobs still to make in this queue */
  liveGroups (): Promise<string[]>
}

export interface GroupOptions<T> {
  /** the group mode's own queue: its jobs are leased first */
  queue: string
  behind?: LaneBehind
  /** group and job leases, renewed every third */
  leaseMs: number
  pollMs: number
  /** one process only (the embedded database): at its first poll, every other holder's groups and job leases are void */
  singleProcess: boolean
  /** jobs of the group worked on at once: enough to keep its rate, few enough that memory stays flat however deep its queue */
  capacity (groupKey: string): Promise<number>
  /** what each job works on, read for a batch at once (the records); undefined for a job whose subject is gone */
  read (jobs: Job[]): Promise<Array<T | undefined>>
  /** the line a job waits in: a line's jobs run one at a time, in arrival order (a recipient's messages) */
  lineOf (job: Job, subject: T | undefined): string
}

/** Works one job of a group; a dependency that blinks (isRetryLater) is waited out in the job's line. */
export type GroupTask<T> = (job: Job, subject: T | undefined) => Promise<GroupOutcome>

export interface GroupMode {
  start (): void
  wake (): void
  stop (): Promise<void>
}

/**
 * A group mode of the runner (src/work/runner.ts, `defineGroups`), as graphile-worker's named
 * queues: each group (a sending number) is worked by one process at a time, the one holding its
 * lease (job_groups); the processes share the groups. In the holder, the group's jobs are leased in
 * arrival order, a batch at a time as room frees up, and each runs after the previous one of its
 * line. A group's drain ends when it has nothing left.
 */
export function createGroupMode<T> (deps: { db: Database, worker: string, log: FastifyBaseLogger, name: string }, options: GroupOptions<T>, task: GroupTask<T>): GroupMode {
  const { db, worker, log, name } = deps
  const leases = groupLeases(db, name)
  const queues = [options.queue, ...options.behind ? [options.behind.queue] : []]
  const drains = new Map<string, GroupDrain>()
  let timer: NodeJS.Timeout | undefined
  let renewal: NodeJS.Timeout | undefined
  let polling: Promise<void> | undefined
  let stopped = false
  let tookOver = !options.singleProcess
  // nothing to work on: the next look comes later and later (a wake in this process looks at once)
  const polls = idlePolls(options.pollMs)
  const faults = faultLog(log, `work groups ${name}: polling`)

  /** Starts a drain for each group with work and none yet; whether any group had any. */
  async function poll (): Promise<boolean> {
    if (!tookOver) {
      await leases.takeOverAll(queues, worker)
      tookOver = true
    }
    const groups = [...new Set([
      ...await leases.withWork(options.queue),
      ...options.behind ? [...await leases.withWork(options.behind.queue), ...await options.behind.liveGroups()] : []
    ])]
    for (const groupKey of groups) {
      if (stopped || drains.has(groupKey)) continue
      if (!await leases.take(groupKey, worker, options.leaseMs)) continue
      const drain = drainGroup(groupKey, { db, worker, log, leases, queues, options, capacity: await options.capacity(groupKey), task })
      drains.set(groupKey, drain)
      void drain.done.finally(() => {
        drains.delete(groupKey)
        leases.release(groupKey, worker).catch(error => log.warn({ code: faultCode(error) }, 'could not release a group lease; it runs out by itself'))
      })
    }
    return groups.length > 0
  }

  function schedule (delayMs: number): void {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(() => {
      polling ??= poll()
        .then(found => { faults.succeeded(); polls.after(found) })
        // a database that blinks: look less often (up to IDLE_POLL_MAX_MS), one log line per outage
        .catch(error => { faults.failed(error); polls.after(false) })
        .finally(() => { polling = undefined; schedule(polls.delayMs) })
    }, delayMs).unref()
  }

  async function renew (): Promise<void> {
    const held = await leases.renew([...drains.keys()], worker, options.leaseMs)
    for (const [groupKey, drain] of drains) if (!held.includes(groupKey)) drain.stop()
    await jobSql.renew(db, worker, [...drains.values()].flatMap(drain => drain.jobIds()), options.leaseMs)
  }

  return {
    start () {
      schedule(0)
      const renewals = faultLog(log, `work groups ${name}: lease renewal`)
      renewal = setInterval(() => { renew().then(() => { renewals.succeeded() }, error => { renewals.failed(error) }) }, options.leaseMs / 3).unref()
    },
    wake () {
      polls.reset()
      schedule(0)
      for (const drain of drains.values()) drain.poke()
    },
    async stop () {
      stopped = true
      clearTimeout(timer)
      clearInterval(renewal)
      await polling
      for (const drain of drains.values()) drain.stop()
      await Promise.all([...drains.values()].map(async drain => await drain.done))
    }
  }
}

interface GroupDrain {
  done: Promise<void>
  /** Leases nothing more; what waits behind its line's earlier job goes back to the queue. */
  stop (): void
  jobIds (): number[]
  /** Looks for work now (a job enqueued in this process) rather than at its next turn. */
  poke (): void
}

interface DrainDeps<T> {
  db: Database
  worker: string
  log: FastifyBaseLogger
  leases: GroupLeases
  queues: string[]
  options: GroupOptions<T>
  capacity: number
  task: GroupTask<T>
}

/** One group's jobs in this process, until it has none left. */
function drainGroup<T> (groupKey: string, deps: DrainDeps<T>): GroupDrain {
  const { db, worker, options, capacity } = deps
  const behind = options.behind
  const active = new Map<number, Job>()
  const lines = new Map<string, Promise<void>>()
  let stopped = false
  let wake: (() => void) | undefined
  let poked = false
  const faults = faultLog(deps.log, `work groups ${deps.queues.join(', ')}`)
  const complete = createBatcher(async (ids: number[]) => {
    await jobSql.complete(db, ids, worker)
    return ids.map(() => undefined)
  }, { maxBatch: 500 })

  function start (job: Job, subject: T | undefined): void {
    const key = options.lineOf(job, subject)
    const run: Promise<void> = (lines.get(key) ?? Promise.resolve()).then(async () => {
      const outcome = await runWaitingOutFaults(job, subject)
      // given back because this process is stopping: lease nothing more (leasing it again would spin until the drain is stopped)
      if (outcome === 'requeue') stopped = true
      // The job's end is retried while the database is away, within its lease (after it another
      // process may hold the job): work done during an outage is finished as soon as the database
      // answers, not offered again once its lease runs out (CONTRACT.md 12).
      await untilItLands(async () => {
        if (outcome === 'requeue') await jobSql.release(db, [job.id], worker)
        else if (outcome === 'done') await complete(job.id)
        else await jobSql.defer(db, [job.id], worker, outcome.later)
      }, options.leaseMs)
    }).catch(error => {
      // the job keeps its lease until it runs out; then it is offered again and finds its subject as it is
      deps.log.error({ jobId: job.id, code: faultCode(error) }, 'work groups: could not settle a job')
    }).finally(() => {
      active.delete(job.id)
      if (lines.get(key) === run) lines.delete(key)
      wake?.()
    })
    lines.set(key, run)
  }

  /**
   * A dependency that blinks before the work began is waited out here, in the job's line, so that
   * nothing behind it overtakes it and nothing ends because of it (CONTRACT.md 12).
   */
  async function runWaitingOutFaults (job: Job, subject: T | undefined): Promise<GroupOutcome> {
    for (let tries = 0; ; tries++) {
      if (stopped) return 'requeue'
      try {
        return await deps.task(job, subject)
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
    // lease in batches: one claim per quarter of the capacity rather than one per job
    const minBatch = Math.max(1, Math.floor(capacity / 4))
    // leased, but their subjects not read yet (the database failed in between): read before leasing more
    let unread: Job[] = []
    let waitMs = options.pollMs
    let othersGone = false
    // the lane behind: assumed live until a feed says otherwise; fed at most once a poll unless the last feed was full
    let behindLive = behind !== undefined
    let fedAt = 0
    let fedFull = false
    // the group's own queue: when last looked at, whether it had some, whether a wake here asked for a look
    let ownLeasedAt = 0
    let ownFound = false
    while (!stopped) {
      try {
        if (!othersGone && await deps.leases.leftByAnother(deps.queues, groupKey, worker)) {
          await next(options.pollMs)
          continue
        }
        othersGone = true
        const room = capacity - active.size - unread.length
        // The loop wakes at every job's end; while the lane behind keeps the room filled, the own
        // queue is looked at when poked (an enqueue here), after a lease that found some, or once a
        // poll (another process's enqueue): not in an empty lease per job behind.
        const lookAtOwn = !behindLive || poked || ownFound || Date.now() - ownLeasedAt >= options.pollMs
        if (lookAtOwn && (room >= minBatch || (active.size === 0 && unread.length === 0 && room > 0))) {
          poked = false
          ownLeasedAt = Date.now()
          const own = await jobSql.lease(db, options.queue, { worker, leaseMs: options.leaseMs, limit: room, groupKey })
          ownFound = own.length > 0
          unread.push(...own)
        }
        // The lane behind gets only the room the own queue left, less a quarter: a job enqueued in
        // the own queue now is leased ahead of every job behind not yet leased.
        const left = capacity - minBatch - active.size - unread.length
        if (behind && behindLive && left > 0 && (left >= minBatch || (active.size === 0 && unread.length === 0))) {
          const jobs = await jobSql.lease(db, behind.queue, { worker, leaseMs: options.leaseMs, limit: left, groupKey })
          unread.push(...jobs)
          if (jobs.length < left && (fedFull || Date.now() - fedAt >= options.pollMs)) {
            const fed = await behind.feed(groupKey, capacity)
            behindLive = fed.live
            fedAt = Date.now()
            fedFull = fed.made >= capacity
          }
        } else if (behind && !behindLive && Date.now() - fedAt >= options.pollMs * 4) {
          // work behind made while this group's drain was busy with other work (a campaign resumed or started)
          behindLive = true
        }
        const leased = unread
        const subjects = await options.read(leased)
        unread = []
        faults.succeeded()
        leased.forEach((job, i) => {
          active.set(job.id, job)
          start(job, subjects[i])
        })
        if (leased.length === 0 && active.size === 0 && !behindLive) break
        waitMs = fedFull ? 0 : leased.length > 0 && leased.length < room ? options.pollMs : options.pollMs * 4
      } catch (error) {
        if (!isRetryLater(error)) throw error
        faults.failed(error)
        waitMs = Math.min(Math.max(waitMs * 2, options.pollMs), 1000)
      }
      if (stopped) break
      await next(waitMs)
    }
    if (unread.length > 0) await jobSql.release(db, unread.map(job => job.id), worker).catch(() => {})
    await Promise.allSettled([...lines.values()])
  }

  const done = loop().catch(error => {
    deps.log.error({ code: faultCode(error) }, 'work groups: a group\'s drain failed')
  })
  return {
    done: done.then(async () => { await Promise.allSettled([...lines.values()]) }),
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
