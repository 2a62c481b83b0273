import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../db/client.js'
import { createBatcher } from '../store/batcher.js'
import { jobSql, type Job, type NewJob } from './jobs.js'
import { faultCode, isRetryLater } from '../faults/classify.js'
import { faultLog, type FaultLog } from '../faults/fault-log.js'
import { faultWaitMs, untilItLands } from '../faults/retry.js'
import { stoppableWaits } from '../faults/waits.js'
import { exponentialBackoff, idlePolls } from './backoff.js'
import { createGroupMode, type GroupMode, type GroupOptions, type GroupTask } from './groups.js'
import { safeErrorText } from '../safe-error.js'

export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0]

interface TaskOptions {
  /** the most jobs one claim takes */
  batch: number
  /** attempts before a job becomes a dead letter */
  maxAttempts?: number
  /** the delay before attempt `attempt + 1`, after `attempt` failed */
  backoffMs?: (attempt: number) => number
  /** how often an idle queue looks for work (a local enqueue wakes it at once) */
  pollMs?: number
}

interface BatchOptions extends TaskOptions {
  /** called after a batch's transaction has committed: what the task wrote is visible now */
  committed?(): void
}

/** Runs inside a transaction with its jobs locked; they are done when it commits. For work that only touches the database. */
export type BatchTask = (jobs: Job[], tx: Transaction) => Promise<void>

/** Runs one leased job outside any transaction (it may call the network); done when it resolves. */
export type LeasedTask = (job: Job) => Promise<void>

export interface LeasedOptions extends TaskOptions {
  /** jobs worked on at once by this process */
  concurrency: number
  /** how long a process holds a job before another may take it over; renewed while it works */
  leaseMs?: number
  /**
   * Jobs of one group (their `groupKey`) worked on at once by this process, at least `batch`: a
   * group that hangs (a customer's endpoint that never answers) holds at most this many of the
   * `concurrency` slots, and the claims pass over its waiting jobs to the other groups'. Jobs
   * without a group are not counted.
   */
  perGroup?: number
}

export interface WorkRunner {
  /** Transactional work: the handler's writes and the jobs' completion commit together, so a crash applies a job once or not at all. */
  defineBatch(queue: string, options: BatchOptions, task: BatchTask): void
  /** Work with side effects outside the database, under a lease: after a crash it is offered again, and the task decides what is safe to repeat. */
  defineLeased(queue: string, options: LeasedOptions, task: LeasedTask): void
  /** Work done every `everyMs` by one process at a time (a sweep): one job, scheduled again as each run ends, whatever its outcome. */
  defineRecurring(queue: string, options: { everyMs: number, leaseMs?: number }, task: () => Promise<void>): void
  /**
   * Work in groups, one process at a time per group (a number's queued sends and campaign
   * messages), its jobs in arrival order per line (a recipient): src/work/groups.ts. Woken, and
   * stopped, by its name.
   */
  defineGroups<T>(name: string, options: GroupOptions<T>, task: GroupTask<T>): void
  /** Stores jobs, in the caller's transaction when given one; call wake() after it commits. */
  enqueue(jobs: NewJob[], tx?: Pick<Database, 'execute'>): Promise<number[]>
  /** Looks for work on the queue (or group mode) now rather than at its next poll. */
  wake(queue: string): void
  /**
   * Works the queue until a look finds nothing claimable, or `timeoutMs` passes (the inbox's
   * drain at shutdown); whether it found nothing.
   */
  drained(queue: string, timeoutMs: number): Promise<boolean>
  /** Stops a group mode before the rest (its dependencies close before the runner: the dispatch); waits for its work under way. */
  halt(name: string): Promise<void>
  start(): void
  /** Stops claiming, and waits up to graceMs for work under way; leases of unfinished jobs run out by themselves. */
  stop(graceMs: number): Promise<void>
}

/** What a round found: a full batch (look again at once), some work, or nothing claimable. */
type Round = 'full' | 'worked' | 'idle'

interface Queue {
  name: string
  pollMs: number
  round(): Promise<Round>
  running: Promise<void> | undefined
  timer: NodeJS.Timeout | undefined
  again: boolean
  polls: ReturnType<typeof idlePolls>
  faults: FaultLog
  /** drained() callers: told after each round whether it found nothing to claim */
  watchers: Set<(idle: boolean) => void>
}

const DEFAULT_POLL_MS = 250
const DEFAULT_LEASE_MS = 30_000
// how long an attempt given back after a blip is retried while the database is away
const GIVE_BACK_MS = 30_000

/**
 * The one runner behind every kind of durable work (the webhook inbox, customer events, the media
 * mirror, queued sends and campaign messages): claiming (FOR UPDATE SKIP LOCKED, so several
 * processes share a queue), leases, retries with backoff, dead letters, and groups worked by one
 * process at a time (src/work/groups.ts).
 * A task is a function that does one kind of work and knows nothing of how it was scheduled.
 */
export function createWorkRunner (deps: { db: Database, worker: string, log: FastifyBaseLogger }): WorkRunner {
  const { db, worker, log } = deps
  const queues = new Map<string, Queue>()
  const leasedWork = new Map<string, { settled: Set<Promise<void>>, renewal: NodeJS.Timeout }>()
  const groupModes = new Map<string, GroupMode>()
  let started = false
  let stopping = false
  const recurring: Array<() => Promise<void>> = []
  // the retries of writes that must land, ended at once by stop (src/faults/waits.ts)
  const stopped = stoppableWaits()

  async function retryOrBury (job: Job, error: unknown, options: TaskOptions, fence?: string): Promise<void> {
    // A dependency that blinked is no fault of the job's: it gets its attempt back and is tried
    // again soon, however often that happens; never a dead letter (CONTRACT.md 12). The give-back
    // is retried while the database is away, so the outage does not cost the attempt after all.
    if (isRetryLater(error)) {
      const retryAt = new Date(Date.now() + faultWaitMs(Number.MAX_SAFE_INTEGER))
      await untilItLands(async () => { await jobSql.fail(db, job.id, { error: faultCode(error), retryAt, attempts: Math.max(0, job.attempts - 1), worker: fence }) }, GIVE_BACK_MS, stopped)
      return
    }
    const maxAttempts = options.maxAttempts ?? 5
    // stored and logged: a database error by its SQL state, never its parameters
    const message = safeErrorText(error)
    const retryAt = job.attempts < maxAttempts ? new Date(Date.now() + (options.backoffMs ?? exponentialBackoff)(job.attempts)) : undefined
    await jobSql.fail(db, job.id, { error: message, retryAt, attempts: job.attempts, worker: fence })
    log.warn({ queue: job.queue, jobId: job.id, attempts: job.attempts, dead: retryAt === undefined, err: message }, retryAt ? 'job failed; retrying later' : 'job failed for good; kept as a dead letter')
  }

  function schedule (queue: Queue, delayMs: number): void {
    if (stopping || !started) return
    clearTimeout(queue.timer)
    queue.timer = setTimeout(() => run(queue), delayMs).unref()
  }

  function run (queue: Queue): void {
    if (queue.running) { queue.again = true; return }
    queue.running = (async () => {
      let found: Round = 'worked'
      let nothing = false
      try {
        found = await queue.round()
        nothing = found === 'idle'
        queue.faults.succeeded()
      } catch (error) {
        // a database that blinks: the queue looks less often (idlePolls), one log line per outage
        queue.faults.failed(error)
        if (isRetryLater(error)) found = 'idle'
      }
      queue.running = undefined
      for (const watcher of queue.watchers) watcher(nothing)
      const delayMs = queue.polls.after(found !== 'idle' || queue.again)
      const again = found === 'full' || queue.again
      queue.again = false
      schedule(queue, again ? 0 : delayMs)
    })()
  }

  function add (name: string, pollMs: number | undefined, round: () => Promise<Round>): void {
    if (queues.has(name) || groupModes.has(name)) throw new Error(`work queue ${name} is defined twice`)
    const queue: Queue = { name, pollMs: pollMs ?? DEFAULT_POLL_MS, round, running: undefined, timer: undefined, again: false, polls: idlePolls(pollMs ?? DEFAULT_POLL_MS), faults: faultLog(log, `work queue ${name}`), watchers: new Set() }
    queues.set(name, queue)
    if (started) run(queue)
  }

  return {
    defineBatch (name, options, task) {
      // A batch that fails is split: each job runs alone, so one bad job delays only itself.
      async function runAlone (job: Job): Promise<void> {
        try {
          await db.transaction(async tx => {
            const [locked] = await jobSql.lockReady(tx, name, 1, [job.id])
            if (!locked) return // another process has it
            await task([locked], tx)
            await jobSql.complete(tx, [locked.id])
          })
          options.committed?.()
        } catch (error) {
          await retryOrBury({ ...job, attempts: job.attempts + 1 }, error, options)
        }
      }
      add(name, options.pollMs, async () => {
        if (!await jobSql.anyClaimable(db, name, false)) return 'idle'
        let claimed: Job[] = []
        try {
          await db.transaction(async tx => {
            claimed = await jobSql.lockReady(tx, name, options.batch)
            if (claimed.length === 0) return
            await task(claimed, tx)
            await jobSql.complete(tx, claimed.map(job => job.id))
          })
          if (claimed.length > 0) options.committed?.()
        } catch (error) {
          // nothing was committed: a blip costs the jobs nothing, and splitting the batch would not help
          if (claimed.length === 0 || isRetryLater(error)) throw error
          if (claimed.length === 1) {
            await retryOrBury({ ...claimed[0], attempts: claimed[0].attempts + 1 }, error, options)
            return 'worked'
          }
          log.warn({ queue: name, jobs: claimed.length, err: error }, 'batch failed; working its jobs one by one')
          for (const job of claimed) await runAlone(job)
        }
        return claimed.length === options.batch ? 'full' : 'worked'
      })
    },

    defineLeased (name, options, task) {
      const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
      // Jobs finishing together are deleted by one statement (group commit): at hundreds of short
      // jobs a second (outgoing webhooks), one delete each would cost more than the work.
      const complete = createBatcher(async (ids: number[]) => {
        await jobSql.complete(db, ids, worker)
        return ids.map(() => undefined)
      }, { maxBatch: 500 })
      const inFlight = new Set<number>()
      const groups = groupCounter(options.perGroup, options.batch, options.pollMs ?? DEFAULT_POLL_MS)
      const renewals = faultLog(log, `work queue ${name}: lease renewal`)
      const renewal = setInterval(() => {
        jobSql.renew(db, worker, [...inFlight], leaseMs).then(() => { renewals.succeeded() }, error => { renewals.failed(error) })
      }, leaseMs / 3).unref()
      const settled = new Set<Promise<void>>()
      add(name, options.pollMs, async () => {
        const room = options.concurrency - inFlight.size
        // a busy queue claims a batch at a time rather than one job per finished job: one claim statement per batch
        if (room <= 0 || (inFlight.size > 0 && room < Math.min(options.batch, options.concurrency))) return 'worked'
        const limit = Math.min(room, options.batch)
        const crowded = groups.crowded()
        if (groups.passedOverRecently(crowded)) return 'worked'
        if (!await jobSql.anyClaimable(db, name, true)) return 'idle'
        const jobs = await jobSql.lease(db, name, { worker, leaseMs, limit, skipGroups: crowded })
        groups.claimed(crowded, jobs.length)
        for (const job of jobs) {
          inFlight.add(job.id)
          groups.add(job.groupKey)
          const done = (async () => {
            let worked = false
            try {
              await task(job)
              worked = true
              // done is done: its completion is retried while the database is away, not the work
              await untilItLands(async () => { await complete(job.id) }, leaseMs, stopped)
            } catch (error) {
              if (worked) log.warn({ queue: name, jobId: job.id, code: faultCode(error) }, 'could not record a job done; it is offered again once its lease runs out')
              else await retryOrBury(job, error, options, worker).catch(failure => log.error({ queue: name, jobId: job.id, code: faultCode(failure) }, 'could not record a job failure'))
            } finally {
              inFlight.delete(job.id)
              groups.remove(job.groupKey)
              if (!stopping) run(queues.get(name)!)
            }
          })()
          settled.add(done)
          void done.finally(() => settled.delete(done))
        }
        // a full claim with room left: claim again at once
        return jobs.length === limit && room - limit >= Math.min(options.batch, options.concurrency) ? 'full' : 'worked'
      })
      leasedWork.set(name, { settled, renewal })
    },

    defineRecurring (name, options, task) {
      const next = async (current?: number) => { await jobSql.scheduleOne(db, name, new Date(Date.now() + (current === undefined ? 0 : options.everyMs)), current) }
      this.defineLeased(name, { batch: 1, concurrency: 1, leaseMs: options.leaseMs, pollMs: Math.min(options.everyMs, 1000), maxAttempts: 1 }, async job => {
        try {
          await task()
        } finally {
          await next(job.id)
        }
      })
      recurring.push(next)
    },

    defineGroups (name, options, task) {
      if (queues.has(name) || groupModes.has(name)) throw new Error(`work queue ${name} is defined twice`)
      const mode = createGroupMode({ db, worker, log, name }, options, task)
      groupModes.set(name, mode)
      if (started) mode.start()
    },

    async enqueue (jobs, tx) {
      return await jobSql.enqueue(tx ?? db, jobs)
    },

    wake (name) {
      if (!started || stopping) return
      groupModes.get(name)?.wake()
      const queue = queues.get(name)
      if (!queue || !started || stopping) return
      queue.polls.reset()
      run(queue)
    },

    async drained (name, timeoutMs) {
      const queue = queues.get(name)
      if (!queue || !started || stopping) return false
      return await new Promise<boolean>(resolve => {
        const timer = setTimeout(() => { settle(false) }, timeoutMs).unref()
        const watcher = (idle: boolean): void => { if (idle) settle(true) }
        function settle (idle: boolean): void {
          clearTimeout(timer)
          queue!.watchers.delete(watcher)
          resolve(idle)
        }
        queue.watchers.add(watcher)
        queue.polls.reset()
        run(queue)
      })
    },

    async halt (name) {
      const mode = groupModes.get(name)
      groupModes.delete(name)
      await mode?.stop()
    },

    start () {
      started = true
      for (const queue of queues.values()) run(queue)
      for (const schedule of recurring) schedule().catch(error => log.warn({ code: faultCode(error) }, 'could not schedule a recurring task'))
      for (const mode of groupModes.values()) mode.start()
    },

    async stop (graceMs) {
      stopping = true
      setTimeout(() => { stopped.stop() }, graceMs).unref()
      for (const queue of queues.values()) clearTimeout(queue.timer)
      const underWay = [...queues.values()].map(queue => queue.running).filter(Boolean)
      for (const leased of leasedWork.values()) { clearInterval(leased.renewal); underWay.push(...leased.settled) }
      for (const mode of groupModes.values()) underWay.push(mode.stop())
      await Promise.race([Promise.allSettled(underWay), new Promise(resolve => setTimeout(resolve, graceMs).unref())])
    }
  }
}

/**
 * Jobs in flight per group. A group is passed over by the claims while it has less room than one
 * claim may bring (`claim`): so no group ever goes past its limit, and no job is claimed only to be
 * given back. A claim that passed over some groups and found nothing else is not tried again with
 * the same groups crowded for a poll's time: it reads the whole backlog of those groups to find
 * nothing (one endpoint's 10,000 waiting events at each job's end).
 */
function groupCounter (limit: number | undefined, claim: number, pollMs: number) {
  if (limit !== undefined && limit < claim) throw new Error(`perGroup (${limit}) must be at least the batch (${claim})`)
  const counts = new Map<string, number>()
  let fruitless: { crowded: string, until: number } | undefined
  return {
    crowded: (): string[] => limit === undefined ? [] : [...counts].filter(([, count]) => limit - count < claim).map(([group]) => group),
    passedOverRecently: (crowded: string[]): boolean =>
      crowded.length > 0 && fruitless?.crowded === crowded.join('\n') && Date.now() < fruitless.until,
    claimed (crowded: string[], jobs: number): void {
      fruitless = crowded.length > 0 && jobs === 0 ? { crowded: crowded.join('\n'), until: Date.now() + pollMs } : undefined
    },
    add (group: string | null): void {
      if (limit !== undefined && group !== null) counts.set(group, (counts.get(group) ?? 0) + 1)
    },
    remove (group: string | null): void {
      if (limit === undefined || group === null) return
      const count = (counts.get(group) ?? 1) - 1
      if (count <= 0) counts.delete(group)
      else counts.set(group, count)
    }
  }
}
