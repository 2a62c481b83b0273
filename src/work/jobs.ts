import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database, type Executor } from '../../db/client.js'
import { anyOf } from '../store/any-of.js'

export type { Executor } from '../../db/client.js'

export interface NewJob {
  queue: string
  payload: Buffer | string
  /** a sub-queue a task may claim on its own */
  groupKey?: string
  /** not before this time (default: at once) */
  runAt?: Date
}

export interface Job {
  id: number
  queue: string
  groupKey: string | null
  payload: Buffer
  /** attempts started so far, this one included */
  attempts: number
  createdAt: Date
}

interface JobRow { id: string | number, queue: string, group_key: string | null, payload: string, attempts: number, created_at: string | Date }

// The payload comes back in base64 (Node decodes it natively, line breaks included): as bytea the
// embedded driver parses its hex text a byte at a time in JavaScript, 11% of the intake's CPU.
const COLUMNS = sql.raw('id, queue, group_key, encode(payload, \'base64\') as payload, attempts, created_at')

/** The SQL of the durable-work runner (src/work/runner.ts): enqueue, claim, settle, replay. */
export const jobSql = {
  /** One statement for any number of jobs; returns their ids in the given order. */
  async enqueue (db: Executor, jobs: NewJob[]): Promise<number[]> {
    if (jobs.length === 0) return []
    // one JSON parameter, the payloads in base64: one statement text whatever the batch (prepared once), no parameter limit
    const rows = jobs.map(job => ({ queue: job.queue, group_key: job.groupKey ?? null, payload: toBytes(job.payload).toString('base64'), run_at: (job.runAt ?? new Date()).toISOString() }))
    const result = await db.execute(sql`insert into jobs (queue, group_key, payload, run_at)
      select v.queue, v.group_key, decode(v.payload, 'base64'), v.run_at
      from rows from (json_to_recordset(${JSON.stringify(rows)}::json) as (queue text, group_key text, payload text, run_at timestamptz))
        with ordinality as v(queue, group_key, payload, run_at, n)
      order by v.n returning id`)
    // identity values are handed out in the order of `n`, the jobs' order
    return rowsOf<{ id: string | number }>(result).map(row => Number(row.id)).sort((a, b) => a - b)
  },

  /**
   * Whether a claim would find anything: one cheap statement, so that an idle queue's poll costs
   * one round trip rather than a claim's transaction. `leased`: running jobs whose lease ran out count.
   */
  async anyClaimable (db: Executor, queue: string, leased: boolean): Promise<boolean> {
    const expired = leased ? sql`or (status = 'running' and locked_until < now())` : sql``
    const result = await db.execute(sql`select exists (select 1 from jobs where queue = ${queue} and status <> 'dead'
      and ((status = 'ready' and run_at <= now()) ${expired})) as found`)
    return rowsOf<{ found: boolean }>(result)[0].found === true
  },

  /**
   * Locks up to `limit` ready jobs in arrival order for the caller's transaction (FOR UPDATE SKIP
   * LOCKED: another process's transaction takes the next ones). A process that dies releases them
   * with its connection; nothing else marks them.
   */
  async lockReady (tx: Executor, queue: string, limit: number, ids?: number[]): Promise<Job[]> {
    const only = ids ? sql`and id in (${sql.join(ids.map(id => sql`${id}`), sql`, `)})` : sql``
    await walkInOrder(tx)
    const result = await tx.execute(sql`
      select ${COLUMNS} from jobs
      where queue = ${queue} and status = 'ready' and run_at <= now() ${only}
      order by id limit ${limit} for update skip locked`)
    await plannerAsUsual(tx)
    return rowsOf<JobRow>(result).map(toJob)
  },

  /**
   * Leases up to `limit` jobs to a process until now + leaseMs, counting an attempt: ready ones, and
   * running ones whose holder's lease ran out (it died or hung). The task decides what a second
   * attempt may safely do. `= any(array(…))` runs the claim once; as `in (…)` the planner may
   * join it and claim again for every row of the table (seen: 12–40 s per claim, 20,000 jobs).
   */
  async lease (db: Pick<Database, 'transaction'>, queue: string, options: { worker: string, leaseMs: number, limit: number, groupKey?: string, skipGroups?: string[] }): Promise<Job[]> {
    const group = options.groupKey === undefined ? sql`` : sql`and group_key = ${options.groupKey}`
    const skipped = options.skipGroups?.length ? sql`and (group_key is null or not (group_key = ${anyOf(options.skipGroups)}))` : sql``
    const result = await db.transaction(async tx => {
      await walkInOrder(tx)
      return await tx.execute(sql`
        update jobs set status = 'running', locked_by = ${options.worker}, attempts = attempts + 1,
          locked_until = now() + ${options.leaseMs} * interval '1 millisecond'
        where id = any(array(
          select id from jobs
          where queue = ${queue} ${group} ${skipped} and status <> 'dead'
            and ((status = 'ready' and run_at <= now()) or (status = 'running' and locked_until < now()))
          order by id limit ${options.limit} for update skip locked))
        returning ${COLUMNS}`)
    })
    return rowsOf<JobRow>(result).map(toJob).sort((a, b) => a.id - b.id)
  },

  /** Keeps this process's leases on jobs it is still working on. */
  async renew (db: Executor, worker: string, ids: number[], leaseMs: number): Promise<void> {
    if (ids.length === 0) return
    await db.execute(sql`update jobs set locked_until = now() + ${leaseMs} * interval '1 millisecond'
      where locked_by = ${worker} and status = 'running' and id = ${anyOf(ids, 'bigint')}`)
  },

  /** Done: the job is gone. `worker` fences a leased job that another process has since taken over. */
  async complete (db: Executor, ids: number[], worker?: string): Promise<void> {
    if (ids.length === 0) return
    const fence = worker === undefined ? sql`` : sql`and locked_by = ${worker}`
    await db.execute(sql`delete from jobs where id = ${anyOf(ids, 'bigint')} ${fence}`)
  },

  /** Another try at `retryAt`, or a dead letter when there is none. */
  async fail (db: Executor, id: number, outcome: { error: string, retryAt?: Date, attempts?: number, worker?: string }): Promise<void> {
    const fence = outcome.worker === undefined ? sql`` : sql`and locked_by = ${outcome.worker}`
    const attempts = outcome.attempts === undefined ? sql`attempts` : sql`${outcome.attempts}`
    await db.execute(sql`
      update jobs set status = ${outcome.retryAt ? 'ready' : 'dead'}, run_at = coalesce(${outcome.retryAt?.toISOString() ?? null}::timestamptz, run_at),
        attempts = ${attempts}, last_error = ${outcome.error.slice(0, 1000)}, locked_by = null, locked_until = null
      where id = ${id} ${fence}`)
  },

  /** Gives a leased job back untouched (a process stopping before it began the work). */
  async release (db: Executor, ids: number[], worker: string): Promise<void> {
    if (ids.length === 0) return
    await db.execute(sql`update jobs set status = 'ready', attempts = greatest(attempts - 1, 0), locked_by = null, locked_until = null
      where locked_by = ${worker} and status = 'running' and id = ${anyOf(ids, 'bigint')}`)
  },

  /** Gives a leased job back to run again at `runAt` (a held queued send), its attempt not counted. */
  async defer (db: Executor, ids: number[], worker: string, runAt: Date): Promise<void> {
    if (ids.length === 0) return
    await db.execute(sql`update jobs set status = 'ready', run_at = ${runAt.toISOString()}::timestamptz, attempts = greatest(attempts - 1, 0), locked_by = null, locked_until = null
      where locked_by = ${worker} and status = 'running' and id = ${anyOf(ids, 'bigint')}`)
  },

  /**
   * A recurring task's next run (src/work/runner.ts, defineRecurring): one job at `runAt` unless the
   * queue has one already besides `current` (the run that is ending). Under a lock of the queue's
   * name, so that processes starting together schedule one.
   */
  async scheduleOne (db: Pick<Database, 'transaction'>, queue: string, runAt: Date, current?: number): Promise<void> {
    await db.transaction(async tx => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${queue}))`)
      await tx.execute(sql`insert into jobs (queue, payload, run_at) select ${queue}, ''::bytea, ${runAt.toISOString()}::timestamptz
        where not exists (select 1 from jobs where queue = ${queue} and status <> 'dead' and id <> ${current ?? 0})`)
    })
  },

  /** Dead letters back to ready, with a fresh count of attempts. */
  async replayDead (db: Executor, queue: string, ids?: number[]): Promise<number> {
    const only = ids ? sql`and id = ${anyOf(ids, 'bigint')}` : sql``
    const result = await db.execute(sql`update jobs set status = 'ready', attempts = 0, run_at = now(), last_error = null
      where queue = ${queue} and status = 'dead' ${only} returning id`)
    return rowsOf(result).length
  },

  /**
   * The inserting half of a statement that stores jobs from rows another part of it wrote (the
   * outbox's deliveries, inserted with their jobs in one statement): `source` selects `group_key`
   * and `payload` (text) in the jobs' order.
   */
  insertFrom (queue: string, source: SQL): SQL {
    return sql`insert into jobs (queue, group_key, payload) select ${queue}, s.group_key, convert_to(s.payload, 'UTF8') from (${source}) as s`
  },

  /** A condition on a row: no job of `queue` in the group `groupKey` carries `payload` (text) (a record that lost its job). */
  noJob (queue: string, groupKey: SQL, payload: SQL): SQL {
    return sql`not exists (select 1 from jobs j where j.queue = ${queue} and j.group_key = ${groupKey} and j.payload = convert_to(${payload}, 'UTF8'))`
  },

  /**
   * Deferred jobs (ready, due later) of `queues` run now: those whose group and payload (text) are a
   * row `records` selects (columns `group_key`, `payload`, `at`), the `limit` first by `at` (all
   * without one). In the caller's transaction when given one; how many.
   */
  async runNow (db: Executor, queues: readonly string[], records: SQL, limit?: number): Promise<number> {
    const result = await db.execute(sql`with due as (
        select j.id from jobs j join (${records}) as r on j.group_key = r.group_key and j.payload = convert_to(r.payload, 'UTF8')
        where j.queue = ${anyOf([...queues])} and j.status = 'ready' and j.run_at > now()
        order by r.at limit ${limit ?? null}::integer)
      update jobs set run_at = now() where id in (select id from due)
      returning id`)
    return rowsOf(result).length
  },

  /** Dead jobs of `queue` whose payload (text) holds one of `texts` deleted (an erasure); how many. */
  async deleteDeadMentioning (db: Executor, queue: string, texts: string[]): Promise<number> {
    return await deleteMentioning(db, queue, texts, sql`and status = 'dead'`)
  },

  /** The queue's jobs whose payload mentions one of these texts, whatever their state (an erased person's pending read marks). */
  async deleteAllMentioning (db: Executor, queue: string, texts: string[]): Promise<number> {
    return await deleteMentioning(db, queue, texts, sql``)
  },

  /** Deletes the dead letters of `queue` whose payloads (text) are these (their work was given new jobs). */
  async deleteDead (db: Executor, queue: string, payloads: string[]): Promise<void> {
    if (payloads.length === 0) return
    await db.execute(sql`delete from jobs where queue = ${queue} and status = 'dead' and convert_from(payload, 'UTF8') = ${anyOf(payloads)}`)
  },

  /** Jobs not dead per queue and group: how many, and the age in seconds of the oldest (the metrics). */
  async depths (db: Executor): Promise<Array<{ queue: string, groupKey: string | null, count: number, oldestSeconds: number }>> {
    const result = await db.execute(sql`
      select queue, group_key, count(*)::int as count, extract(epoch from now() - min(created_at))::float8 as oldest
      from jobs where status <> 'dead' group by queue, group_key`)
    return rowsOf<{ queue: string, group_key: string | null, count: number, oldest: number }>(result)
      .map(row => ({ queue: row.queue, groupKey: row.group_key, count: Number(row.count), oldestSeconds: Number(row.oldest) }))
  },

  async counts (db: Executor, queue: string): Promise<{ ready: number, running: number, dead: number }> {
    const result = await db.execute(sql`select status, count(*)::int as n from jobs where queue = ${queue} group by status`)
    const counts = { ready: 0, running: 0, dead: 0 }
    for (const row of rowsOf<{ status: keyof typeof counts, n: number }>(result)) counts[row.status] = Number(row.n)
    return counts
  }
}

/**
 * Claims must walk the claimable index in id order and stop at their limit. The planner, misled by
 * statistics taken while the queue was empty (a queue table usually is), would rather collect and
 * sort the whole backlog on every claim: 11 ms per claim of 32 among 20,000 jobs instead of 1 ms.
 * For the rest of the caller's transaction, until plannerAsUsual.
 */
async function walkInOrder (tx: Executor): Promise<void> {
  await tx.execute(sql`select set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)`)
}

/** After a claim, so that a batch task's own statements in the same transaction plan as usual. */
async function plannerAsUsual (tx: Executor): Promise<void> {
  await tx.execute(sql`select set_config(name, reset_val, true) from pg_settings where name in ('enable_sort', 'enable_bitmapscan')`)
}



function toBytes (payload: Buffer | string): Buffer {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload
}

function toJob (row: JobRow): Job {
  return { id: Number(row.id), queue: row.queue, groupKey: row.group_key, payload: Buffer.from(row.payload, 'base64'), attempts: row.attempts, createdAt: new Date(row.created_at) }
}

async function deleteMentioning (db: Executor, queue: string, texts: string[], status: SQL): Promise<number> {
  if (texts.length === 0) return 0
  const patterns = texts.map(text => `%${text.replace(/[\\%_]/g, match => `\\${match}`)}%`)
  return rowsOf(await db.execute(sql`delete from jobs where queue = ${queue} ${status} and convert_from(payload, 'UTF8') like ${anyOf(patterns)} returning 1`)).length
}
