import { sql } from 'drizzle-orm'
import pino from 'pino'
import { beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { newId } from '../../src/store/ids.js'
import { applyParts } from '../../src/webhooks/apply.js'
import { faultCode } from '../../src/faults/classify.js'
import { emptyParts } from '../../src/webhooks/delivery.js'
import { useTestRuntime } from '../helpers/runtime.js'

const NUMBER = '106540352242922'
const ROUNDS = 25
const PREFIXES = ['1555', '4477', '5511']
const RECORDS = 24
const postgres = Boolean(process.env.TEST_DATABASE_URL)

/**
 * The inbox's one-by-one fallback (src/webhooks/apply.ts) beside sends' outcome writes on the same
 * records, all in one hour and three prefixes, so three usage_sent rows (migration 0017): the
 * statuses name the records before their outcome does (the wamid comes with them), so either may
 * count a record.
 * Nothing may deadlock (40P01, retried at the cost of deadlock_timeout), and the counts come out
 * as the records say.
 */
describe('webhooks: the inbox\'s fallback and sends\' outcomes take their locks in one order', () => {
  const runtime = useTestRuntime()
  let workspaceId: string
  const db = () => runtime.current.database.db
  const log = pino({ level: 'silent' })

  beforeAll(async () => {
    workspaceId = (await runtime.current.stores.workspaces.create('lock order', 'scale')).id
  })

  async function deadlocks (): Promise<number> {
    if (!postgres) return 0
    await db().execute(sql`select pg_stat_clear_snapshot()`)
    return rowsOf<{ n: number }>(await db().execute(sql`select deadlocks::int as n from pg_stat_database where datname = current_database()`))[0].n
  }

  async function records (round: number): Promise<string[]> {
    const ids = Array.from({ length: RECORDS }, () => newId('msg'))
    const values = ids.map((id, n) => sql`(${id}, ${workspaceId}, ${NUMBER}, ${`${PREFIXES[n % PREFIXES.length]}${String(round * 100 + n).padStart(7, '0')}`}, 'text', '{}'::jsonb, 'pending')`)
    await db().execute(sql`insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status) values ${sql.join(values, sql`, `)}`)
    return ids
  }

  /** The statuses of every record, in an order of their own, and one no index can hold: the batch fails and is applied one by one. */
  async function inbox (ids: string[]): Promise<void> {
    const parts = emptyParts()
    const status = (id: string, wamid: string) => ({ jobId: 1, wamid, status: 'sent', phoneNumberId: NUMBER, recordId: id, upstreamTimestamp: new Date(), payload: { id: wamid, status: 'sent' } })
    parts.statuses.push(status(newId('msg'), 'wamid.' + 'd'.repeat(3000).split('').map((_, n) => String.fromCodePoint(0x4e00 + (n * 7919) % 20000)).join('')))
    for (const id of shuffled(ids)) parts.statuses.push(status(id, `wamid.${id}`))
    await db().transaction(async tx => { await applyParts(tx, parts, { log, lockRecords: true }) })
  }

  /** Each record's outcome, a few at a time while the inbox applies: sent, or a third of them timed out (the status then says sent). */
  async function sends (ids: string[]): Promise<PromiseSettledResult<void>[]> {
    const { messages } = runtime.current.stores
    return await Promise.allSettled(shuffled(ids).map(async (id, n) => {
      await new Promise(resolve => setTimeout(resolve, 2 * Math.floor(n / 3)))
      if (n % 3 === 2) await messages.markFailed(id, { errorCode: 'upstream_timeout', errorText: 'no answer', attempts: 1 }, n % 2 === 0)
      else await messages.markSent(id, { wamid: `wamid.${id}`, attempts: 1 }, n % 2 === 0)
    }))
  }

  it('no deadlock over many rounds, and every record counted once', async () => {
    const before = await deadlocks()
    const failures: string[] = []
    const all: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await records(round)
      all.push(...ids)
      const [applied, sent] = await Promise.all([inbox(ids).then(() => [], (error: unknown) => [error]), sends(ids)])
      const outcomes = [...applied.map(reason => ({ status: 'rejected', reason })), ...sent]
      for (const outcome of outcomes) if (outcome.status === 'rejected') failures.push(faultCode(outcome.reason))
    }
    expect(failures).toEqual([])
    // the statistics reach pg_stat_database within a second of the backend going idle
    if (postgres) await new Promise(resolve => setTimeout(resolve, 1500))
    expect(await deadlocks() - before).toBe(0)

    const statuses = rowsOf<{ status: string, n: number }>(await db().execute(sql`select status, count(*)::int as n from messages where workspace_id = ${workspaceId} and wamid = 'wamid.' || id group by status`))
    expect(statuses).toEqual([{ status: 'sent', n: all.length }])
    // each round's batch went the fallback's way: its poison status, and only it, kept aside
    const aside = rowsOf<{ reason: string, n: number }>(await db().execute(sql`select reason, count(*)::int as n from webhook_kept_aside group by reason`))
    expect(aside).toEqual([{ reason: 'apply_failed_54000', n: ROUNDS }])
    const [counted] = rowsOf<{ n: number }>(await db().execute(sql`select coalesce(sum(messages), 0)::int as n from usage_sent where workspace_id = ${workspaceId}`))
    expect(counted.n).toBe(all.length)
  })
})

function shuffled<T> (values: T[]): T[] {
  const copy = [...values]
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1))
    ;[copy[index], copy[other]] = [copy[other], copy[index]]
  }
  return copy
}
