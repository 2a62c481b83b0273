import { sql } from 'drizzle-orm'
import { performance } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { connectWorkspace } from '../src/connections/connect.js'
import { defaultAccount, startEmulator, type Emulator } from '../src/sandbox/emulator/index.js'
import { testConfig } from '../tests/helpers/config.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { load, machine, percentile, table } from './lib.js'

// Issue 26's figures. (1) The send path with every audience check on (messaging limit, opt-outs,
// template status) against the same gateway with them off (MESSAGING_LIMIT_CHECK=off and a
// UTILITY template, so only the catalog read remains), in alternating rounds of
// BENCH_AUDIENCE_SENDS template sends to distinct recipients (target: on ≥ 0.9× off). (2) GET
// /api/usage.php's query over BENCH_AUDIENCE_RECORDS records (default 1,000,000) on PostgreSQL
// (target ≤ 200 ms), each group. The records are written by one INSERT into messages: the triggers
// of migration 0017 count them into usage_sent and usage_priced as they count any write of a record
// (a send's outcome, a status webhook's price), and the endpoint reads those counts. Needs BENCH_DATABASE_URL (a PostgreSQL server; a database is
// created and dropped) for both parts. BENCH_AUDIENCE_PART=send|usage runs one of them.
const SENDS = Number(process.env.BENCH_AUDIENCE_SENDS ?? 2000)
const ROUNDS = Number(process.env.BENCH_AUDIENCE_ROUNDS ?? 3)
const RECORDS = Number(process.env.BENCH_AUDIENCE_RECORDS ?? 1_000_000)
const CONCURRENCY = 32
const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

interface Gateway { app: FastifyInstance, authorization: string, close (): Promise<void> }

async function gateway (emulator: Emulator, env: Record<string, string>): Promise<Gateway> {
  const database = await createPostgresDatabase(SERVER)
  // BENCH_AUDIENCE_EXPLAIN=<ms>: the on side's statements slower than that, nested ones (the claim's
  // plpgsql) included, logged with their plan, rows and buffers by auto_explain (the server's log)
  if (process.env.BENCH_AUDIENCE_EXPLAIN && !env.MESSAGING_LIMIT_CHECK) {
    const { default: postgres } = await import('postgres')
    const admin = postgres(database.url, { max: 1, onnotice: () => {} })
    const name = new URL(database.url).pathname.slice(1)
    const settings = { session_preload_libraries: 'auto_explain', 'auto_explain.log_min_duration': process.env.BENCH_AUDIENCE_EXPLAIN, 'auto_explain.log_analyze': 'on', 'auto_explain.log_buffers': 'on', 'auto_explain.log_nested_statements': 'on' }
    for (const [setting, value] of Object.entries(settings)) await admin.unsafe(`alter database ${name} set ${setting} = '${value}'`)
    await admin.end()
  }
  const app = await buildApp({
    config: testConfig({ DATABASE_URL: database.url, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, RATE_LIMIT_MAX: '10000000', THROUGHPUT_MPS: '100000', PAIR_RATE_BURST: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0', NUMBER_REFRESH_INTERVAL_MS: '0', ...env }),
    logger: false
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const account = defaultAccount()
  const workspace = await app.workspaces.create('bench', 'growth')
  await connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
  // a tier the run cannot reach: every send takes the locked count's path
  await app.database.db.execute(sql`update phone_numbers set messaging_limit_tier = '10000000'`)
  app.readCache.clear()
  const { secret } = await app.keys.create(workspace.id, 'bench')
  return { app, authorization: `Bearer ${secret}`, async close () { await app.close(); await database.drop() } }
}

let recipient = 0
async function round (target: Gateway): Promise<{ rate: number, p99: number }> {
  const { latencies, seconds } = await load(SENDS, CONCURRENCY, async () => {
    const to = `1666${String(recipient++).padStart(7, '0')}`
    const response = await target.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: target.authorization, 'content-type': 'application/json' }, payload: JSON.stringify({ to, type: 'template', template: 'hello_world' }) })
    if (response.statusCode !== 200) throw new Error(`send answered ${response.statusCode}: ${response.body}`)
  })
  return { rate: SENDS / seconds, p99: percentile(latencies, 99) }
}

async function sendPath (): Promise<string> {
  // the emulator's own throughput cap (130429) out of reach: the gateways are measured, not it
  const emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, throughputMps: 1_000_000 })
  emulator.setStatusOptions('global', { statuses: [] })
  const on = await gateway(emulator, {})
  const off = await gateway(emulator, { MESSAGING_LIMIT_CHECK: 'off' })
  try {
    const rates = { on: [] as number[], off: [] as number[] }
    const p99 = { on: [] as number[], off: [] as number[] }
    await round(on); await round(off) // warm-up
    for (let index = 0; index < ROUNDS; index++) {
      for (const [name, target] of [['off', off], ['on', on]] as const) {
        const result = await round(target)
        rates[name].push(result.rate)
        p99[name].push(result.p99)
        if (process.env.BENCH_AUDIENCE_VERBOSE) console.error(`round ${index} ${name}: ${result.rate.toFixed(0)}/s p99 ${result.p99.toFixed(1)} ms`)
        // BENCH_AUDIENCE_STATS=1: the on side's table counters after each round (scans, HOT updates, dead rows, size)
        if (process.env.BENCH_AUDIENCE_STATS && name === 'on') {
          console.error(JSON.stringify(await target.app.database.db.execute(sql`select relname, n_tup_upd, n_tup_hot_upd, n_dead_tup, n_live_tup, seq_scan, idx_scan,
            autovacuum_count, autoanalyze_count, pg_relation_size(relid) as bytes from pg_stat_user_tables where relname like 'messaging_limit%' or relname = 'messages'`)))
        }
        emulator.reset()
      }
    }
    const median = (values: number[]) => percentile(values, 50)
    // the on side counted every recipient (warm-up included), the off side none
    const counted = async (target: Gateway) => ((await target.app.database.db.execute(sql`select coalesce(sum(used), 0)::int as used from messaging_limit_counts`)) as unknown as Array<{ used: number }>)[0].used
    return `${table(['send path (template, distinct recipients)', 'sends/s (median)', 'p99 ms (median)', 'of off'], [
      ['audience checks off', median(rates.off).toFixed(0), median(p99.off).toFixed(1), '1.00×'],
      ['audience checks on', median(rates.on).toFixed(0), median(p99.on).toFixed(1), `${(median(rates.on) / median(rates.off)).toFixed(2)}×`]
    ])}\n(recipients counted in the messaging limit: on ${await counted(on)} of ${(ROUNDS + 1) * SENDS} sent, off ${await counted(off)})`
  } finally {
    await on.close()
    await off.close()
    await emulator.close()
  }
}

async function usageQuery (): Promise<string> {
  const emulator = await startEmulator()
  const target = await gateway(emulator, {})
  try {
    const { db } = target.app.database
    const [{ workspace_id: workspaceId, phone_number_id: numberId }] = (await db.execute(sql`select workspace_id, phone_number_id from phone_numbers limit 1`)) as unknown as Array<{ workspace_id: string, phone_number_id: string }>
    const started = performance.now()
    // 30 days of records, four categories, three calling codes, most billable
    await db.execute(sql`insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, pricing_category, billable, created_at, updated_at)
      select 'msg_b' || n, ${workspaceId}, ${numberId}, (array['1555','4477','5511'])[1 + n % 3] || lpad((n % 100000)::text, 7, '0'), 'template', '{}'::jsonb, 'delivered', 'wamid.b' || n,
        (array['marketing','utility','authentication','service'])[1 + n % 4], n % 4 <> 3, now() - (n % 43200) * interval '1 minute', now()
      from generate_series(1, ${RECORDS}) as n`)
    await db.execute(sql`vacuum analyze messages`)
    await db.execute(sql`vacuum analyze usage_sent`)
    await db.execute(sql`vacuum analyze usage_priced`)
    const loaded = (performance.now() - started) / 1000
    const [kept] = (await db.execute(sql`select (select count(*) from usage_sent)::int as sent, (select count(*) from usage_priced)::int as priced`)) as unknown as Array<{ sent: number, priced: number }>
    const rows: (string | number)[][] = []
    for (const group of ['day', 'category', 'country'] as const) {
      const times: number[] = []
      for (let index = 0; index < 5; index++) {
        const begin = performance.now()
        const response = await target.app.inject({ method: 'GET', url: `/api/usage.php?group=${group}`, headers: { authorization: target.authorization } })
        if (response.statusCode !== 200) throw new Error(`usage answered ${response.statusCode}`)
        times.push(performance.now() - begin)
      }
      rows.push([`GET /api/usage.php?group=${group}`, RECORDS, percentile(times, 50).toFixed(1), Math.max(...times).toFixed(1)])
    }
    // the counts against the records counted one by one (the query GET /api/usage.php made before
    // migration 0017), over a period whose edges fall inside hours: the same rows, and its time
    const until = new Date(Date.now() - (2 * 60 + 11) * 60_000)
    const since = new Date(until.getTime() - 29 * 86_400_000 + 17 * 60_000 + 3_000)
    const raw = { day: `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`, category: `coalesce(pricing_category, 'unknown')`, country: 'left(recipient, 3)' }
    const checks: string[] = []
    for (const group of ['day', 'category', 'country'] as const) {
      const begin = performance.now()
      const expected = (await db.execute(sql`select ${sql.raw(raw[group])} as key, count(*) filter (where billable)::int as billable, count(*) filter (where not billable)::int as free,
          count(*) filter (where billable is null)::int as unpriced, count(*)::int as messages
        from messages where workspace_id = ${workspaceId} and wamid is not null and created_at >= ${since.toISOString()}::timestamptz and created_at < ${until.toISOString()}::timestamptz
        group by 1 order by 1`)) as unknown as Array<Record<string, unknown>>
      const rawMs = performance.now() - begin
      const answer = await target.app.usage.counts(workspaceId, since, until, group)
      if (JSON.stringify(answer) !== JSON.stringify(expected.map(row => ({ key: row.key, billable: row.billable, free: row.free, unpriced: row.unpriced, messages: row.messages })))) throw new Error(`usage by ${group} differs from the records counted one by one`)
      checks.push(`${group} ${rawMs.toFixed(0)} ms`)
    }
    rows.push(['(the records counted one by one, as before 0017: ' + checks.join(', ') + '; same rows)', '', '', ''])
    return `${table(['usage query (PostgreSQL)', 'records', 'ms (median of 5)', 'ms (slowest)'], rows)}\n(${RECORDS} records loaded, counted by the triggers, in ${loaded.toFixed(1)} s: ${kept.sent} usage_sent and ${kept.priced} usage_priced rows)`
  } finally {
    await target.close()
    await emulator.close()
  }
}

console.log(machine())
// BENCH_AUDIENCE_PART=send or usage runs one part alone
const PART = process.env.BENCH_AUDIENCE_PART
if (PART !== 'usage') console.log(await sendPath())
if (PART !== 'send') console.log(await usageQuery())
process.exit(0)
