import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import postgres from 'postgres'
import { Pool } from 'undici'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { startChild, type Child } from './child.js'
import { busiestWindow, mib, percentile, table } from './lib.js'

// Queued sends (Prefer: respond-async): memory with a deep queue, the drain rate against the
// emulator's limit beside live sends at the same limit, and a live send's latency while a queue
// drains beside the same on an idle number.
const DEEP = Number(process.env.BENCH_QUEUE_DEEP ?? 100_000)
const DRAIN_SECONDS = Number(process.env.BENCH_QUEUE_SECONDS ?? 8)
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

type Gateway = Child<{ url: string, authorization: string }>
interface Stats { errors: Record<string, number>, accepted: number[] }

async function post (pool: Pool, gateway: Gateway, to: string, queued: boolean): Promise<number> {
  const response = await pool.request({
    method: 'POST',
    path: '/api/messages.php',
    headers: { authorization: gateway.ready.authorization, 'content-type': 'application/json', ...(queued && { prefer: 'respond-async' }) },
    body: JSON.stringify({ to, body: 'Hello' })
  })
  await response.body.dump()
  return response.statusCode
}

/** Hands `total` messages over, `concurrency` at a time; the seconds it took. */
async function handOver (gateway: Gateway, total: number, prefix: string, concurrency = 64): Promise<number> {
  const pool = new Pool(gateway.ready.url, { connections: concurrency })
  const started = performance.now()
  let next = 0
  let refused = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) if (await post(pool, gateway, `${prefix}${String(next++).padStart(7, '0')}`, true) !== 202) refused++
  }))
  await pool.close()
  if (refused > 0) console.error(`queue bench: ${refused} hand-overs refused`)
  return (performance.now() - started) / 1000
}

async function withGateway<T> (env: Record<string, string>, run: (gateway: Gateway, emulator: Child<{ url: string }>) => Promise<T>, emulatorEnv: Record<string, string> = {}): Promise<T> {
  const emulator = await startChild<{ url: string }>('emulator', emulatorEnv)
  const gateway = await startChild<{ url: string, authorization: string }>('gateway', { GRAPH_API_URL: emulator.ready.url, RATE_LIMIT_MAX: '100000000', PAIR_RATE_BURST: '100000', ASYNC_QUEUE_LIMIT: '10000000', ...env })
  try {
    return await run(gateway, emulator)
  } finally {
    await gateway.stop()
    await emulator.stop()
  }
}

/** RSS of the gateway before and after DEEP hand-overs, the queue held (1 message a second). */
async function memory (database: string, env: Record<string, string>): Promise<(string | number)[]> {
  return await withGateway({ ...env, THROUGHPUT_MPS: '1' }, async gateway => {
    await handOver(gateway, 200, '1333')
    await sleep(2000)
    const before = (await gateway.call<{ now: number }>('rss')).now
    const heapBefore = await gateway.call<number>('liveHeap')
    await gateway.call('resetPeak')
    const seconds = await handOver(gateway, DEEP, '1444')
    await sleep(3000)
    const after = await gateway.call<{ now: number, peak: number }>('rss')
    const queued = await gateway.call<number>('queued')
    const heapGrowth = mib(await gateway.call<number>('liveHeap') - heapBefore)
    return [database, String(queued), `${(DEEP / seconds).toFixed(0)}/s`, mib(before).toFixed(0), mib(after.now).toFixed(0), mib(after.peak).toFixed(0), `${after.now >= before ? '+' : ''}${mib(after.now - before).toFixed(0)}`, `${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)}`]
  })
}

/** Queued sends drained at the limit, beside live sends offered for as long at the same limit. */
async function drainRate (limit: number): Promise<(string | number)[][]> {
  const total = limit * DRAIN_SECONDS
  const env = { THROUGHPUT_MPS: String(limit) }
  const emulatorEnv = { EMULATOR_THROUGHPUT_MPS: String(limit) }
  const queued = await withGateway(env, async (gateway, emulator) => {
    // the queue filled first, so that the rate is the drain's, not the hand-over's
    await gateway.call('holdDrain', true)
    const seconds = await handOver(gateway, total, '1444')
    await gateway.call('holdDrain', false)
    while ((await emulator.call<Stats>('stats')).accepted.length < total) await sleep(250)
    return { seconds, stats: await emulator.call<Stats>('stats') }
  }, emulatorEnv)
  const live = await withGateway(env, async (gateway, emulator) => {
    const pool = new Pool(gateway.ready.url, { connections: Math.min(2 * limit, 400) })
    let next = 0
    const until = Date.now() + DRAIN_SECONDS * 1000
    await Promise.all(Array.from({ length: Math.min(2 * limit, 400) }, async () => {
      while (Date.now() < until) await post(pool, gateway, `1444${String(next++).padStart(7, '0')}`, false).catch(() => 0)
    }))
    await pool.close()
    return await emulator.call<Stats>('stats')
  }, emulatorEnv)
  const row = (name: string, stats: Stats, handOverSeconds?: number) => {
    const times = [...stats.accepted].sort((a, b) => a - b)
    const rate = (times.length - Math.max(1, Math.floor(limit / 10))) / ((times.at(-1)! - times[0]) / 1000)
    return [name, `${limit}/s`, String(times.length), handOverSeconds === undefined ? '–' : `${handOverSeconds.toFixed(1)} s`, rate.toFixed(1), `${(100 * rate / limit).toFixed(1)}%`, String(busiestWindow(times)), String(stats.errors[130429] ?? 0)]
  }
  return [row('queued', queued.stats, queued.seconds), row('live (baseline)', live)]
}

/** p50/p95 of 40 live sends one after another: while 1,600 queued sends drain from the same number, and on an idle number. */
async function liveLatency (): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = []
  for (const busy of [false, true]) {
    rows.push(await withGateway({ THROUGHPUT_MPS: '80' }, async gateway => {
      if (busy) await handOver(gateway, 1600, '1444')
      const pool = new Pool(gateway.ready.url, { connections: 1 })
      const latencies: number[] = []
      for (let index = 0; index < 40; index++) {
        const started = performance.now()
        await post(pool, gateway, `1777${String(index).padStart(7, '0')}`, false)
        latencies.push(performance.now() - started)
        await sleep(100)
      }
      await pool.close()
      const left = await gateway.call<number>('queued')
      return [busy ? 'while 1,600 queued drain (80/s)' : 'idle number (baseline)', String(busy ? left : 0), percentile(latencies, 50).toFixed(0), percentile(latencies, 95).toFixed(0)]
    }, { EMULATOR_THROUGHPUT_MPS: '80' }))
  }
  return rows
}

async function memoryRows (): Promise<(string | number)[][]> {
  const only = (process.env.BENCH_QUEUE_MEMORY ?? 'disk,memory,postgres').split(',')
  const rows: (string | number)[][] = []
  if (only.includes('disk')) {
    const dataDir = await mkdtemp(join(tmpdir(), 'outbound-bench-queue-'))
    try {
      rows.push(await memory('embedded (on disk, the default)', { BENCH_GATEWAY_DATA_DIR: dataDir }))
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  if (only.includes('memory')) rows.push(await memory('embedded (in memory: the database is in the process)', {}))
  if (!only.includes('postgres')) return rows
  const sql = postgres(POSTGRES_URL, { max: 1, connect_timeout: 3, onnotice: () => {} })
  const pgAnswers = await sql`select 1`.then(() => true, () => false)
  await sql.end({ timeout: 1 })
  if (pgAnswers) {
    const database = await createPostgresDatabase(POSTGRES_URL)
    try {
      rows.push(await memory('PostgreSQL', { BENCH_GATEWAY_DATABASE_URL: database.url }))
    } finally {
      await database.drop()
    }
  }
  return rows
}

export async function benchQueue (): Promise<string> {
  const memoryTable = table(['database', 'still queued', 'hand-overs/s', 'RSS before', 'RSS after', 'peak', 'growth', 'live V8 heap growth'], await memoryRows())
  if (process.env.BENCH_QUEUE_ONLY === 'memory') return memoryTable
  const rates = [...await drainRate(80), ...await drainRate(1000)]
  return `Memory: ${DEEP.toLocaleString('en')} messages handed over (64 at a time) to a number paced at 1/s, so they stay queued; RSS of the gateway's process (MiB)\n\n` +
    memoryTable +
    `\n\nDrain: ${DRAIN_SECONDS} s worth handed over while the drain is held, then drained against the emulator enforcing the limit; beside it, live sends offered as fast as the gateway takes them for as long (distinct recipients)\n\n` +
    table(['sends', 'limit', 'accepted', 'hand-over took', 'accepted/s', 'of limit', 'busiest 1 s window', '130429'], rates) +
    '\n\nA live send (one at a time, 40 of them) from a number whose queue drains, beside an idle number (ms)\n\n' +
    table(['number', 'still queued after', 'p50', 'p95'], await liveLatency())
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchQueue())
}
