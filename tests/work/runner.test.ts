import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { jobSql } from '../../src/work/jobs.js'
import { createWorkRunner, type WorkRunner } from '../../src/work/runner.js'
import { useTestRuntime } from '../helpers/runtime.js'
import { waitFor } from '../helpers/wait.js'

const log = pino({ level: 'silent' })
const runtime = useTestRuntime()
const runners: WorkRunner[] = []

function runner (worker = 'w1'): WorkRunner {
  const created = createWorkRunner({ db: runtime.current.database.db, worker, log })
  runners.push(created)
  return created
}

afterEach(async () => {
  await Promise.all(runners.splice(0).map(async started => await started.stop(1000)))
  await runtime.current.database.db.execute(sql`delete from jobs`)
  await runtime.current.database.db.execute(sql`delete from settings where key like 'job:%'`)
})

const db = () => runtime.current.database.db
const payloads = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ queue: prefix, payload: `${prefix}-${index}` }))
async function kept (): Promise<string[]> {
  return rowsOf<{ key: string }>(await db().execute(sql`select key from settings where key like 'job:%' order by key`)).map(row => row.key)
}

describe('durable work: transactional batches', () => {
  it('works every job once, in arrival order, its writes committed with its completion', async () => {
    const work = runner()
    const seen: string[] = []
    work.defineBatch('apply', { batch: 50, pollMs: 20 }, async (jobs, tx) => {
      for (const job of jobs) {
        seen.push(job.payload.toString())
        await tx.execute(sql`insert into settings (key, value) values (${`job:${job.payload.toString()}`}, 'x')`)
      }
    })
    await work.enqueue(payloads(230, 'apply'))
    work.start()
    await waitFor(async () => (await jobSql.counts(db(), 'apply')).ready === 0 && seen.length === 230, { what: 'all jobs worked' })
    expect(seen).toEqual(payloads(230, 'apply').map(job => job.payload))
    expect(await kept()).toHaveLength(230)
  })

  it('keeps bytes exactly as given, including ones no text column accepts', async () => {
    const work = runner()
    const bytes = Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x5c, 0x75, 0x64, 0x38, 0x30, 0x30, 0x7d])
    // long enough for PostgreSQL's base64 to break lines (76 characters)
    const long = Buffer.from(Array.from({ length: 1000 }, (_, index) => (index * 37) % 256))
    let received: Buffer[] | undefined
    work.defineBatch('bytes', { batch: 10, pollMs: 20 }, async jobs => { received = jobs.map(job => job.payload) })
    await work.enqueue([{ queue: 'bytes', payload: bytes }, { queue: 'bytes', payload: long }])
    work.start()
    await waitFor(async () => received)
    expect(received!.map(payload => payload.toString('hex'))).toEqual([bytes.toString('hex'), long.toString('hex')])
  })

  it('splits a failing batch: the good jobs commit, the bad one rolls back alone, retries with backoff, then becomes a dead letter that can be replayed', async () => {
    const work = runner()
    let poisonAttempts = 0
    let cured = false
    work.defineBatch('mixed', { batch: 20, pollMs: 20, maxAttempts: 3, backoffMs: () => 30 }, async (jobs, tx) => {
      for (const job of jobs) {
        await tx.execute(sql`insert into settings (key, value) values (${`job:${job.payload.toString()}`}, 'x')`)
        if (job.payload.toString() === 'mixed-3' && !cured) { poisonAttempts++; throw new Error('cannot apply mixed-3') }
      }
    })
    await work.enqueue(payloads(8, 'mixed'))
    work.start()
    await waitFor(async () => (await jobSql.counts(db(), 'mixed')).dead === 1, { what: 'a dead letter' })
    expect(await kept()).toEqual(payloads(8, 'mixed').map(job => `job:${job.payload}`).filter(key => key !== 'job:mixed-3').sort())
    // once as part of the batch, then 3 attempts alone
    expect(poisonAttempts).toBe(4)
    const [dead] = rowsOf<{ last_error: string, attempts: number }>(await db().execute(sql`select last_error, attempts from jobs where status = 'dead'`))
    expect(dead).toMatchObject({ last_error: 'cannot apply mixed-3', attempts: 3 })

    cured = true
    expect(await jobSql.replayDead(db(), 'mixed')).toBe(1)
    work.wake('mixed')
    await waitFor(async () => (await kept()).includes('job:mixed-3'), { what: 'the replayed job' })
    expect(await jobSql.counts(db(), 'mixed')).toEqual({ ready: 0, running: 0, dead: 0 })
  })

  it('enqueues inside the caller\'s transaction: a rollback leaves no job behind', async () => {
    const work = runner()
    await db().transaction(async tx => {
      await work.enqueue([{ queue: 'outbox', payload: 'kept' }], tx)
    })
    await expect(db().transaction(async tx => {
      await work.enqueue([{ queue: 'outbox', payload: 'lost' }], tx)
      throw new Error('the state change failed')
    })).rejects.toThrow('the state change failed')
    const rows = rowsOf<{ payload: Uint8Array }>(await db().execute(sql`select payload from jobs where queue = 'outbox'`))
    expect(rows.map(row => Buffer.from(row.payload).toString())).toEqual(['kept'])
  })
})

describe('durable work: leased jobs', () => {
  it('runs jobs concurrently up to the limit, completes them, and retries a failure later', async () => {
    const work = runner()
    let active = 0
    let most = 0
    const done: string[] = []
    let failedOnce = false
    work.defineLeased('deliver', { batch: 10, concurrency: 4, pollMs: 20, backoffMs: () => 50 }, async job => {
      active++
      most = Math.max(most, active)
      await new Promise(resolve => setTimeout(resolve, 20))
      active--
      if (job.payload.toString() === 'deliver-5' && !failedOnce) { failedOnce = true; throw new Error('endpoint answered 500') }
      done.push(job.payload.toString())
    })
    await work.enqueue(payloads(12, 'deliver'))
    work.start()
    await waitFor(async () => done.length === 12, { what: 'every job delivered' })
    expect(most).toBeLessThanOrEqual(4)
    expect(new Set(done).size).toBe(12)
    // completions are group-committed just after their tasks resolve
    await waitFor(async () => JSON.stringify(await jobSql.counts(db(), 'deliver')) === JSON.stringify({ ready: 0, running: 0, dead: 0 }), { what: 'every job deleted' })
  })

  it('takes over a job whose holder stopped renewing its lease, as a further attempt', async () => {
    await jobSql.enqueue(db(), [{ queue: 'takeover', payload: 'one' }])
    const [held] = await jobSql.lease(db(), 'takeover', { worker: 'dead-process', leaseMs: 100, limit: 5 })
    expect(held.attempts).toBe(1)
    const work = runner('w2')
    const attempts: number[] = []
    work.defineLeased('takeover', { batch: 5, concurrency: 2, pollMs: 20, leaseMs: 1000 }, async job => { attempts.push(job.attempts) })
    work.start()
    await waitFor(async () => attempts.length === 1, { what: 'the takeover' })
    expect(attempts).toEqual([2])
    // the dead holder's late completion must not remove what it no longer holds
    await jobSql.enqueue(db(), [{ queue: 'takeover', payload: 'two' }])
    await waitFor(async () => attempts.length === 2)
  })
})

describe.runIf(process.env.TEST_DATABASE_URL)('durable work: several processes on PostgreSQL', () => {
  it('two runners share one queue and work each job exactly once', async () => {
    const seen = new Map<string, number>()
    for (const name of ['a', 'b']) {
      const work = runner(name)
      work.defineBatch('shared', { batch: 25, pollMs: 5 }, async (jobs, tx) => {
        await tx.execute(sql`select pg_sleep(0.002)`)
        for (const job of jobs) seen.set(job.payload.toString(), (seen.get(job.payload.toString()) ?? 0) + 1)
      })
      work.start()
    }
    await jobSql.enqueue(db(), payloads(600, 'shared'))
    runners.forEach(work => work.wake('shared'))
    await waitFor(async () => seen.size === 600 && (await jobSql.counts(db(), 'shared')).ready === 0, { what: 'all shared jobs' })
    expect([...seen.values()].every(count => count === 1)).toBe(true)
  })
})

describe('durable work: idle queues', () => {
  it('looks less and less often while idle, at most once a second, and a wake still brings work at once', async () => {
    const looks: number[] = []
    const anyClaimable = jobSql.anyClaimable
    jobSql.anyClaimable = async (...args) => {
      if (args[1] === 'idle') looks.push(Date.now())
      return await anyClaimable(...args)
    }
    try {
      const work = runner()
      const worked: number[] = []
      work.defineBatch('idle', { batch: 10, pollMs: 50 }, async jobs => { worked.push(...jobs.map(() => Date.now())) })
      work.start()
      await new Promise(resolve => setTimeout(resolve, 3000))
      // at 50 ms a busy queue would have looked 60 times; doubling to 1 s, it looks about 8 times
      expect(looks.length).toBeGreaterThanOrEqual(4)
      expect(looks.length).toBeLessThanOrEqual(12)
      const gaps = looks.slice(1).map((at, index) => at - looks[index])
      expect(Math.max(...gaps)).toBeLessThan(1500)
      const enqueuedAt = Date.now()
      await work.enqueue([{ queue: 'idle', payload: 'now' }])
      work.wake('idle')
      await waitFor(async () => worked.length === 1, { what: 'the woken job' })
      expect(worked[0] - enqueuedAt).toBeLessThan(500)
    } finally {
      jobSql.anyClaimable = anyClaimable
    }
  })
})
