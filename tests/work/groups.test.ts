import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { jobSql, type Job } from '../../src/work/jobs.js'
import type { GroupOutcome } from '../../src/work/groups.js'
import { createWorkRunner, type WorkRunner } from '../../src/work/runner.js'
import { useTestRuntime } from '../helpers/runtime.js'
import { waitFor } from '../helpers/wait.js'

const log = pino({ level: 'silent' })
const runtime = useTestRuntime()
const runners: WorkRunner[] = []
const db = () => runtime.current.database.db

afterEach(async () => {
  await Promise.all(runners.splice(0).map(async started => await started.stop(1000)))
  await db().execute(sql`delete from jobs`)
  await db().execute(sql`delete from job_groups`)
})

/** A payload `line:n`: its line, and its place in it. */
const lineOf = (job: Job) => job.payload.toString().split(':')[0]

/**
 * A runner whose group mode `groups` (queue `grouped`) records what it works, and where: each job
 * holds its group for a moment, so that a second process working the same group at once is seen.
 */
function groupRunner (worker: string, seen: Array<{ worker: string, group: string, payload: string }>, busy: Map<string, string>, overlaps: string[], outcome: (job: Job) => GroupOutcome = () => 'done') {
  const work = createWorkRunner({ db: db(), worker, log })
  runners.push(work)
  work.defineGroups<string>('groups', {
    queue: 'grouped',
    leaseMs: 3000,
    pollMs: 30,
    singleProcess: false,
    capacity: async () => 8,
    read: async jobs => jobs.map(job => job.payload.toString()),
    lineOf
  }, async job => {
    const group = job.groupKey!
    const holder = busy.get(group)
    if (holder !== undefined && holder !== worker) overlaps.push(`${group}: ${holder} and ${worker}`)
    busy.set(group, worker)
    await new Promise(resolve => setTimeout(resolve, 2))
    if (busy.get(group) === worker) busy.delete(group)
    const result = outcome(job)
    if (result === 'done') seen.push({ worker, group, payload: job.payload.toString() })
    return result
  })
  return work
}

describe('durable work: groups (one process a group, arrival order per line)', () => {
  it('works every job once, a group in one process at a time, each line in arrival order; a deferred job comes back without spending an attempt', async () => {
    const seen: Array<{ worker: string, group: string, payload: string }> = []
    const busy = new Map<string, string>()
    const overlaps: string[] = []
    const deferred = new Set<string>()
    // the first job of line a1 is deferred once (a held send): it runs again later, its attempt given back
    const attempts: number[] = []
    const once = (job: Job): GroupOutcome => {
      const payload = job.payload.toString()
      if (payload === 'a1:0') attempts.push(job.attempts)
      if (payload === 'a1:0' && !deferred.has(payload)) { deferred.add(payload); return { later: new Date(Date.now() + 200) } }
      return 'done'
    }
    const jobs = ['g1', 'g2', 'g3'].flatMap(group => ['a', 'b'].flatMap(line => Array.from({ length: 20 }, (_, n) => ({ queue: 'grouped', groupKey: group, payload: `${line}${group.slice(1)}:${n}` }))))
    await jobSql.enqueue(db(), jobs)
    const first = groupRunner('w1', seen, busy, overlaps, once)
    const second = groupRunner('w2', seen, busy, overlaps, once)
    first.start()
    second.start()
    await waitFor(async () => seen.length === jobs.length, { timeoutMs: 30_000, what: 'every job worked' })
    expect(new Set(seen.map(item => item.payload)).size).toBe(jobs.length)
    expect(overlaps).toEqual([])
    for (const line of new Set(jobs.map(job => job.payload.split(':')[0]))) {
      const order = seen.filter(item => item.payload.startsWith(`${line}:`)).map(item => Number(item.payload.split(':')[1]))
      // the deferred job comes back later; the rest of its line, and every other line, in arrival order
      const kept = line === 'a1' ? order.filter(n => n !== 0) : order
      expect(kept).toEqual([...kept].sort((a, b) => a - b))
    }
    expect(attempts).toEqual([1, 1])
    await waitFor(async () => Number(rowsOf<{ n: number }>(await db().execute(sql`select count(*)::int as n from jobs`))[0].n) === 0, { what: 'every job deleted' })
  })

  it('leaves a group another process holds to it, and takes it once its lease runs out', async () => {
    const seen: Array<{ worker: string, group: string, payload: string }> = []
    await db().execute(sql`insert into job_groups (name, group_key, holder, lease_expires_at) values ('groups', 'held', 'elsewhere', now() + interval '1 hour')`)
    await jobSql.enqueue(db(), [{ queue: 'grouped', groupKey: 'held', payload: 'x:0' }, { queue: 'grouped', groupKey: 'free', payload: 'y:0' }])
    const work = groupRunner('w1', seen, new Map(), [])
    work.start()
    await waitFor(async () => seen.some(item => item.group === 'free'), { what: 'the free group worked' })
    expect(seen.filter(item => item.group === 'held')).toEqual([])
    await db().execute(sql`update job_groups set lease_expires_at = now() - interval '1 second' where holder = 'elsewhere'`)
    work.wake('groups')
    await waitFor(async () => seen.some(item => item.group === 'held'), { what: 'the group taken over' })
  })
})
