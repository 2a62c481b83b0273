import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { countryOf } from '../../src/audience/countries.js'
import { usagePeriod, usageRows } from '../../src/audience/reports.js'
import type { UsageGroup } from '../../src/store/usage.js'
import { hoursOf } from '../../src/store/usage.js'
import { useTestRuntime } from '../helpers/runtime.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const PREFIXES = ['1555', '4477', '5511', '9198', '3361', '8613']
const CATEGORIES = [null, 'marketing', 'utility', 'authentication', 'service']
const BILLABLE = [null, true, false]

interface Row { workspace_id: string, recipient: string, created_at: string | Date, wamid: string | null, pricing_category: string | null, billable: boolean | null }

/**
 * CONTRACT.md 14, usage: GET /api/usage.php reads counts kept per hour by triggers on messages
 * (migration 0017), and the records of the partial hours at the period's edges. Whatever the
 * records went through (written with or without a wamid, sent, priced by status webhooks once or
 * redelivered, a category or billable changed, deleted), its answer is the one counting the
 * records one by one gives, for every group and any period.
 */
describe('audience: usage counts kept per hour', () => {
  const runtime = useTestRuntime()
  let workspaceId: string
  let otherId: string
  // a fixed start, mid-hour, so that periods fall across hours and days
  const start = Date.UTC(2026, 10, 20, 21, 37, 12, 345)
  let seed = 7
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]

  beforeAll(async () => {
    workspaceId = (await runtime.current.stores.workspaces.create('usage counts', 'scale')).id
    otherId = (await runtime.current.stores.workspaces.create('usage counts, another', 'scale')).id
  })

  const db = () => runtime.current.database.db

  /** The endpoint's rows, computed from the records one by one, in JavaScript. */
  async function expected (workspace: string, since: Date, until: Date, group: UsageGroup) {
    const rows = rowsOf<Row>(await db().execute(sql`select workspace_id, recipient, created_at, wamid, pricing_category, billable from messages where workspace_id = ${workspace}`))
    const sums = new Map<string, { billable: number, free: number, unpriced: number, messages: number }>()
    for (const row of rows) {
      const at = new Date(row.created_at).getTime()
      if (row.wamid === null || at < since.getTime() || at >= until.getTime()) continue
      const key = group === 'day' ? new Date(at).toISOString().slice(0, 10) : group === 'category' ? row.pricing_category ?? 'unknown' : countryOf(row.recipient.slice(0, 3))
      const sum = sums.get(key) ?? { billable: 0, free: 0, unpriced: 0, messages: 0 }
      if (row.billable === true) sum.billable++
      else if (row.billable === false) sum.free++
      else sum.unpriced++
      sum.messages++
      sums.set(key, sum)
    }
    return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([key, sum]): Record<string, string | number> => ({ [group]: key, ...sum }))
  }

  async function insert (workspace: string, count: number, options: { spreadMs: number, withWamid: number }) {
    const values = Array.from({ length: count }, () => {
      const id = `msg_u${Math.floor(random() * 1e12).toString(36)}${Math.floor(random() * 1e12).toString(36)}`
      const wamid = random() < options.withWamid ? `wamid.${id}` : null
      const at = new Date(start + Math.floor(random() * options.spreadMs)).toISOString()
      const category = wamid ? pick(CATEGORIES) : null
      const billable = wamid ? pick(BILLABLE) : null
      return sql`(${id}, ${workspace}, '106540352242922', ${pick(PREFIXES) + String(Math.floor(random() * 1e7)).padStart(7, '0')}, 'template', '{}'::jsonb,
        ${wamid ? 'sent' : 'pending'}, ${wamid}, ${category}, ${billable}::boolean, ${at}::timestamptz)`
    })
    await db().execute(sql`insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, pricing_category, billable, created_at)
      values ${sql.join(values, sql`, `)}`)
  }

  async function ids (where: ReturnType<typeof sql>, limit: number): Promise<Array<{ id: string, wamid: string | null }>> {
    return rowsOf<{ id: string, wamid: string | null }>(await db().execute(sql`select id, wamid from messages where workspace_id = ${workspaceId} and ${where} order by id limit ${limit}`))
  }

  /** Every group, over periods of every shape: aligned on hours or days, across them, inside one hour, empty, the default. */
  async function expectSameAnswers (label: string) {
    const periods: Array<[Date, Date]> = [
      [new Date(start - DAY), new Date(start + 5 * DAY)],
      [new Date(Date.UTC(2026, 10, 21)), new Date(Date.UTC(2026, 10, 23))],
      [new Date(Math.ceil(start / HOUR) * HOUR), new Date(Math.ceil(start / HOUR) * HOUR + 7 * HOUR)],
      [new Date(start + 1234), new Date(start + 40 * 60_000)],
      [new Date(start + HOUR + 1), new Date(start + 2 * HOUR - 1)],
      [new Date(start + 30 * 60_000), new Date(start + 30 * 60_000)],
      [new Date(start + 59 * 60_000), new Date(start + 61 * 60_000 + 17)]
    ]
    for (let index = 0; index < 14; index++) {
      const a = start - HOUR + Math.floor(random() * 4 * DAY)
      periods.push([new Date(a), new Date(a + Math.floor(random() * 2.5 * DAY))])
    }
    for (const [since, until] of periods) {
      for (const group of ['day', 'category', 'country'] as const) {
        const answer = await usageRows(runtime.current.stores.usage, workspaceId, { since, until, group })
        expect(answer, `${label}: ${group} over [${since.toISOString()}, ${until.toISOString()})`).toEqual(await expected(workspaceId, since, until, group))
      }
      // the dashboard's chart: per day and category, from the same counts
      const chart = await runtime.current.stores.usage.countsByDayAndCategory(workspaceId, since, until)
      const byDay = await expected(workspaceId, since, until, 'day')
      expect(byDay.map(row => ({ day: row.day, messages: row.messages })), `${label}: chart over [${since.toISOString()}, ${until.toISOString()})`)
        .toEqual([...new Set(chart.map(row => row.day))].map(day => ({ day, messages: chart.filter(row => row.day === day).reduce((sum, row) => sum + row.messages, 0) })))
    }
    // the default period, the last 30 days up to now (the records here are older than that, or not)
    const period = usagePeriod({ group: 'category' }, new Date(start + 3 * DAY + 1_111))
    expect(await usageRows(runtime.current.stores.usage, workspaceId, period)).toEqual(await expected(workspaceId, period.since, period.until, 'category'))
  }

  it('splits a period into its whole UTC hours and the partial hours at its edges', () => {
    expect(hoursOf(new Date('2026-11-20T21:37:12.345Z'), new Date('2026-11-22T03:00:00.000Z'))).toEqual({ from: new Date('2026-11-20T22:00:00Z'), to: new Date('2026-11-22T03:00:00Z') })
    expect(hoursOf(new Date('2026-11-20T21:00:00Z'), new Date('2026-11-20T22:59:59.999Z'))).toEqual({ from: new Date('2026-11-20T21:00:00Z'), to: new Date('2026-11-20T22:00:00Z') })
    // inside one hour, or across one boundary without a whole hour: counted one by one
    const since = new Date('2026-11-20T21:10:00Z')
    expect(hoursOf(since, new Date('2026-11-20T22:50:00Z'))).toEqual({ from: since, to: since })
  })

  it('answers as the records counted one by one do, through every way a record changes', async () => {
    await insert(workspaceId, 500, { spreadMs: 3 * DAY, withWamid: 0.7 })
    await insert(otherId, 200, { spreadMs: 3 * DAY, withWamid: 0.8 })
    await expectSameAnswers('as written')

    // the send path: records written before their send, then given their wamid (a batched outcome)
    const pending = await ids(sql`wamid is null`, 60)
    await Promise.all(pending.slice(0, 40).map(async ({ id }, n) => await runtime.current.stores.messages.markSent(id, { wamid: `wamid.sent${n}.${id}`, attempts: 1 })))
    await expectSameAnswers('after sends')

    // status webhooks: a price with the first status, then the same statuses again (a redelivery), then another price that does not replace it
    const sent = await ids(sql`wamid is not null and pricing_category is null and billable is null`, 80)
    const status = (record: { id: string, wamid: string | null }, n: number, status: string, category: string, billable: boolean) => ({
      wamid: record.wamid!, status, phoneNumberId: '106540352242922', recordId: record.id, upstreamTimestamp: new Date(start + n * 1000 + (status === 'sent' ? 0 : 5000)),
      pricingCategory: category, payload: { id: record.wamid, status, pricing: { billable, pricing_model: 'PMP', category } }
    })
    const first = sent.map((record, n) => status(record, n, 'sent', pick(['marketing', 'utility', 'service']), n % 3 !== 0))
    await runtime.current.stores.statusEvents.recordAll(first)
    await expectSameAnswers('after pricing')
    await runtime.current.stores.statusEvents.recordAll(first)
    await runtime.current.stores.statusEvents.recordAll(sent.map((record, n) => status(record, n, 'delivered', 'authentication', false)))
    await expectSameAnswers('after a redelivery and a second price')
    // a status that names the record before its send's outcome does: the wamid comes with the price
    const early = await ids(sql`wamid is null`, 10)
    await runtime.current.stores.statusEvents.recordAll(early.map((record, n) => status({ id: record.id, wamid: `wamid.early${n}.${record.id}` }, n, 'sent', 'utility', true)))
    await expectSameAnswers('after statuses before the outcome')

    // any other change of the counted columns moves the counts: a category, billable, the wamid itself, deletion
    await db().execute(sql`update messages set pricing_category = 'marketing' where id in (select id from messages where workspace_id = ${workspaceId} and pricing_category = 'utility' order by id limit 25)`)
    await db().execute(sql`update messages set billable = null where id in (select id from messages where workspace_id = ${workspaceId} and billable order by id limit 15)`)
    await db().execute(sql`update messages set pricing_category = null where id in (select id from messages where workspace_id = ${workspaceId} and billable is not null order by id desc limit 15)`)
    await db().execute(sql`update messages set billable = not billable, status = 'read' where id in (select id from messages where workspace_id = ${workspaceId} and billable is not null order by id limit 20)`)
    await db().execute(sql`update messages set wamid = null where id in (select id from messages where workspace_id = ${workspaceId} and wamid is not null order by id desc limit 10)`)
    await db().execute(sql`delete from message_events where message_id in (select id from messages where workspace_id = ${workspaceId} order by id limit 30)`)
    await db().execute(sql`delete from messages where id in (select id from messages where workspace_id = ${workspaceId} order by id limit 30)`)
    // a change of nothing counted (the most common update) writes no count
    const before = rowsOf<{ n: number }>(await db().execute(sql`select count(*)::int as n from usage_sent`))[0].n
    await db().execute(sql`update messages set status = 'delivered', updated_at = now() where workspace_id = ${workspaceId} and wamid is not null`)
    expect(rowsOf<{ n: number }>(await db().execute(sql`select count(*)::int as n from usage_sent`))[0].n).toBe(before)
    await expectSameAnswers('after every other change')

    // the other workspace's records are its own
    const period = { since: new Date(start - DAY), until: new Date(start + 5 * DAY) }
    for (const group of ['day', 'category', 'country'] as const) {
      expect(await usageRows(runtime.current.stores.usage, otherId, { ...period, group })).toEqual(await expected(otherId, period.since, period.until, group))
    }
  })

  it('the migration counts the records already there as the triggers do', async () => {
    const kept = async () => rowsOf(await db().execute(sql`select 's' as t, workspace_id, hour, prefix, '' as category, messages as a, 0 as b, 0 as c from usage_sent where messages <> 0
      union all select 'p', workspace_id, hour, prefix, category, billable, free, unpriced from usage_priced where billable <> 0 or free <> 0 or unpriced <> 0 order by 1, 2, 3, 4, 5`))
    const byTriggers = await kept()
    expect(byTriggers.length).toBeGreaterThan(0)
    const migration = readFileSync(new URL('../../db/migrations/0017_usage_counts.sql', import.meta.url), 'utf8')
    const backfill = migration.split('--> statement-breakpoint').map(part => part.trim()).filter(part => /^(-- .*\n)*INSERT INTO "usage_(sent|priced)"/.test(part))
    expect(backfill).toHaveLength(2)
    await db().transaction(async tx => {
      await tx.execute(sql`delete from usage_sent`)
      await tx.execute(sql`delete from usage_priced`)
      for (const statement of backfill) await tx.execute(sql.raw(statement))
    })
    expect(await kept()).toEqual(byTriggers)
  })
})
