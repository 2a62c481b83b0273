// Campaigns (CONTRACT.md 15): creating a campaign of BENCH_CAMPAIGN_N recipients (default 100,000)
// from JSON and from a CSV upload (seconds, the process's RSS growth), then draining it at
// THROUGHPUT_MPS (default 1000) against the emulator while synchronous sends on the same number are
// timed (p99). On TEST_DATABASE_URL's PostgreSQL when set, else the embedded in-memory database.
// The gateway runs in this process (app.inject): RSS is sampled every 10 ms around each request,
// after the request body was built and a full collection, so it counts what the gateway added.
// Smoke run: BENCH_CAMPAIGN_N=2000 npx tsx bench/campaign.ts; QUALITY_GUARD=off|on is passed to the gateway (section 21's guard, on by default)
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { performance } from 'node:perf_hooks'
import { connectedWorkspace, startGateway } from '../tests/helpers/gateway.js'
import { multipart } from '../tests/messages/helpers.js'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../db/client.js'
import { machine, mib, percentile, table } from './lib.js'

const N = Number(process.env.BENCH_CAMPAIGN_N ?? 100_000)
const MPS = process.env.THROUGHPUT_MPS ?? '1000'
const DRAIN = process.env.BENCH_CAMPAIGN_DRAIN !== '0'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

// The emulator's numbers are TIER_2K: with the messaging limit on, a 100,000 drain would stop at
// ~2,000 recipients (waiting_for_limit) and the window would close on a stalled campaign. The limit
// has its own tests; this measures the drain's rate. The emulator's numbers are STANDARD (80/s): it
// is told the bench's rate, else it refuses the rest with 130429 (the first full run: 49,135 failed).
const gateway = await startGateway({ env: { THROUGHPUT_MPS: MPS, RATE_LIMIT_MAX: '1000000', PAIR_RATE_BURST: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0', MESSAGING_LIMIT_CHECK: 'off', ...(process.env.QUALITY_GUARD !== undefined && { QUALITY_GUARD: process.env.QUALITY_GUARD }) }, emulator: { statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, throughputMps: Number(MPS) } })
gateway.emulator.setStatusOptions('global', { statuses: [] })
const workspace = await connectedWorkspace(gateway, 'scale')
const to = (index: number, base: number) => `1777${String(base + index).padStart(7, '0')}`

/** The request's seconds and the peak RSS it added over the RSS before it. */
async function measured (run: () => Promise<{ statusCode: number, body: string }>): Promise<{ seconds: number, rssMiB: number, id: string }> {
  gc()
  const before = process.memoryUsage.rss()
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 10)
  const started = performance.now()
  const response = await run()
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage.rss())
  if (response.statusCode !== 201) throw new Error(`create: ${response.statusCode} ${response.body.slice(0, 300)}`)
  return { seconds, rssMiB: mib(peak - before), id: (JSON.parse(response.body) as { campaign: { id: string } }).campaign.id }
}

// Created paused-at-birth (send_at far ahead), so that creation is measured alone.
const later = new Date(Date.now() + 24 * 3600_000).toISOString()
let jsonBody: string | undefined = JSON.stringify({ name: 'bench json', template: 'order_confirmation', language: 'en_US', send_at: later, recipients: Array.from({ length: N }, (_, index) => ({ to: to(index, 0), variables: [`A-${index}`] })) })
const json = await measured(async () => await gateway.app.inject({ method: 'POST', url: '/api/campaigns.php', headers: { authorization: workspace.authorization, 'content-type': 'application/json' }, payload: jsonBody! }))
jsonBody = undefined
let csvBody: ReturnType<typeof multipart> | undefined = multipart([['name', 'bench csv'], ['template', 'order_confirmation'], ['language', 'en_US'], ['send_at', later]],
  { field: 'file', filename: 'recipients.csv', content: 'to,1\n' + Array.from({ length: N }, (_, index) => `${to(index, 1_000_000)},B-${index}`).join('\n') + '\n' })
const csv = await measured(async () => await gateway.app.inject({ method: 'POST', url: '/api/campaigns.php', headers: { authorization: workspace.authorization, ...csvBody!.headers }, payload: csvBody!.payload }))
csvBody = undefined

console.log(`# bench/campaign.ts — ${N} recipients, ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite in memory'}, THROUGHPUT_MPS=${MPS} (${machine()})\n`)
console.log(table(['create', 'seconds', 'RSS growth (MiB)'], [['JSON', json.seconds.toFixed(2), json.rssMiB.toFixed(1)], ['CSV', csv.seconds.toFixed(2), csv.rssMiB.toFixed(1)]]))

if (DRAIN) {
  await gateway.app.inject({ method: 'POST', url: `/api/campaigns.php?id=${csv.id}&action=cancel`, headers: { authorization: workspace.authorization } })
  // the JSON campaign starts now: send_at is moved to the past by a resume after a pause
  await gateway.app.database.db.execute(sql`update campaigns set send_at = now() where id = ${json.id}`)
  await gateway.app.inject({ method: 'POST', url: `/api/campaigns.php?id=${json.id}&action=pause`, headers: { authorization: workspace.authorization } })
  // PostgreSQL's own counts over the drain (pg_stat_database, pg_stat_user_tables), per campaign
  // message: the round trips (commits: each autocommit statement or transaction is one) and row writes
  // the drain costs beside the send itself (the profile in bench/RESULTS.md)
  const pgStats = async () => {
    const db = gateway.app.database.db
    const [totals] = rowsOf<Record<string, string | number>>(await db.execute(sql`select xact_commit as commits, tup_inserted as inserted, tup_updated as updated, tup_deleted as deleted
      from pg_stat_database where datname = current_database()`))
    const tables = rowsOf<Record<string, string | number>>(await db.execute(sql`select relname, n_tup_ins as inserted, n_tup_upd as updated, n_tup_del as deleted from pg_stat_user_tables`))
    return { totals, tables }
  }
  // the statistics collector reports a backend's counts up to a second late: the creations' first
  await new Promise(resolve => setTimeout(resolve, process.env.TEST_DATABASE_URL ? 1500 : 0))
  const statsBefore = process.env.TEST_DATABASE_URL ? await pgStats() : undefined
  const sentBefore = gateway.emulator.sentMessages.length
  await gateway.app.inject({ method: 'POST', url: `/api/campaigns.php?id=${json.id}&action=resume`, headers: { authorization: workspace.authorization } })
  const latencies: number[] = []
  let syncing = true
  const sync = (async () => {
    for (let index = 0; syncing; index++) {
      const started = performance.now()
      await gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: workspace.authorization, 'content-type': 'application/json' }, payload: JSON.stringify({ to: to(index % 1000, 5_000_000), body: 'live' }) })
      latencies.push(performance.now() - started)
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  })()
  const campaignSends = () => gateway.emulator.sentMessages.slice(sentBefore).filter(message => (message.payload.template as { name?: string } | undefined)?.name === 'order_confirmation')
  const windowStart = Date.now()
  const deadline = windowStart + Math.max(60_000, N / Number(MPS) * 4000)
  while (campaignSends().length < N && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 500))
  syncing = false
  await sync
  if (statsBefore) {
    await new Promise(resolve => setTimeout(resolve, 1500))
    const after = await pgStats()
    const sent = campaignSends().length
    const per = (row: Record<string, string | number>, before: Record<string, string | number> | undefined, key: string) => ((Number(row[key]) - Number(before?.[key] ?? 0)) / sent).toFixed(2)
    console.log(`\nPostgreSQL per campaign message: ${['commits', 'inserted', 'updated', 'deleted'].map(key => `${key} ${per(after.totals, statsBefore.totals, key)}`).join(', ')}`)
    for (const row of after.tables) {
      const before = statsBefore.tables.find(other => other.relname === row.relname)
      if (['inserted', 'updated', 'deleted'].some(key => Number(row[key]) > Number(before?.[key] ?? 0))) {
        console.log(`  ${String(row.relname).padEnd(20)} ${['inserted', 'updated', 'deleted'].map(key => `${key} ${per(row, before, key)}`).join(', ')}`)
      }
    }
  }
  const times = campaignSends().map(message => message.at).sort((a, b) => a - b)
  const rate = times.length > 1 ? (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000) : 0
  // what the campaign says of the ones the emulator did not see: still queued/waiting (the window
  // closed on a drain still going) or failed (and why), so a shortfall is never left unexplained
  const read = await gateway.app.campaigns.get(workspace.workspaceId, json.id)
  console.log(`\ncampaign at the window's close: ${read!.campaign.status} ${JSON.stringify(read!.counts)}; failure reasons ${JSON.stringify(await gateway.app.campaigns.failureReasons(json.id))}; window ${((deadline - windowStart) / 1000).toFixed(0)} s`)
  console.log('\n' + table(['drain', 'sent', 'sustained msg/s', '% of THROUGHPUT_MPS', 'sync sends', 'sync p50 ms', 'sync p99 ms'], [[
    'JSON campaign', times.length, rate.toFixed(0), (100 * rate / Number(MPS)).toFixed(1), latencies.length, percentile(latencies, 50).toFixed(0), percentile(latencies, 99).toFixed(0)
  ]]))
}
await gateway.close()
