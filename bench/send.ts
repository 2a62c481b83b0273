import { Pool } from 'undici'
import { startChild, type Child } from './child.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { checkoutRef } from './checkout.js'
import { load, loadFor, percentile, postgresCpu, processCpu, table } from './lib.js'
import { messagesEndpoint, textMessage } from './upstream-send.js'

// Sends per second and latency through the gateway, beside two bare forwarders of the same body to
// the same emulator (node:http + undici, the yardstick; Fastify + undici), at a few concurrencies, with
// the upstream answering at once and after 50 ms; each cell measures every server back to back.
// Pacing is set out of the way (THROUGHPUT_MPS and the pair burst far above the load).
const list = (value: string | undefined, fallback: number[]) => value ? value.split(',').map(Number) : fallback
const CONCURRENCIES = list(process.env.BENCH_SEND_CONCURRENCIES, [1, 32, 64])
const LATENCIES_MS = list(process.env.BENCH_SEND_LATENCIES, [0, 50])
const BARE = 'baseline: node:http + undici'
const DURATION_MS = Number(process.env.BENCH_SEND_MS ?? 5000)
const WARMUP = 300
const BEFORE = process.env.BENCH_SEND_BEFORE
const BEFORE_NAME = 'gateway (PGlite memory://) at'
// BENCH_SEND_ROUNDS=N: every cell measures each server N times, in turns, and keeps its median round
// (by sends/s): servers that differ by a few percent are told apart from the machine's drift
const ROUNDS = Number(process.env.BENCH_SEND_ROUNDS ?? 1)

interface Subject { name: string, url: string, authorization: string, pid: number, stop (): Promise<void> }

async function subjects (emulatorUrl: string): Promise<Subject[]> {
  const env = { GRAPH_API_URL: emulatorUrl }
  const unpaced = { ...env, THROUGHPUT_MPS: '100000', PAIR_RATE_BURST: '100000', RATE_LIMIT_MAX: '100000000' }
  const started: [string, Child<{ url: string, authorization: string }>, (() => Promise<void>)?][] = [
    ['gateway (PGlite memory://)', await startChild('gateway', unpaced)],
    [BARE, await startChild('baseline', { ...env, BENCH_CLIENT: 'bare' })],
    ['baseline: Fastify + undici', await startChild('baseline', { ...env, BENCH_CLIENT: 'undici' })]
  ]
  // BENCH_SEND_SCOPED_KEY=1: today's gateway with a key limited to messages:send and its one number,
  // so that both scope checks (the route's scope, the number) do their whole work
  if (process.env.BENCH_SEND_SCOPED_KEY === '1') started.splice(1, 0, ['gateway, key limited to messages:send and its number', await startChild('gateway', { ...unpaced, BENCH_GATEWAY_KEY: 'scoped' })])
  // BENCH_SEND_BEFORE=<git ref>: the gateway as it was at that commit, in the same run ("of before":
  // what the code since then costs a send; issue 29 asks ≥ 0.97× for the scope checks)
  const postgres = process.env.BENCH_DATABASE_URL
  if (BEFORE) {
    const tree = checkoutRef(BEFORE)
    started.splice(1, 0, [`${BEFORE_NAME} ${BEFORE}`, await startChild('gateway', unpaced, { root: tree.root }), async () => tree.remove()])
    // with BENCH_DATABASE_URL, that commit's gateway on PostgreSQL too (its tree is removed with the PGlite one's)
    if (postgres) {
      const database = await createPostgresDatabase(postgres)
      started.splice(1, 0, [`gateway (PostgreSQL) at ${BEFORE}`, await startChild('gateway', { ...unpaced, BENCH_GATEWAY_DATABASE_URL: database.url }, { root: tree.root }), database.drop])
    }
  }
  // BENCH_DATABASE_URL: the gateway on PostgreSQL too, to tell the database's share from the rest
  if (postgres) {
    const database = await createPostgresDatabase(postgres)
    started.splice(1, 0, ['gateway (PostgreSQL)', await startChild('gateway', { ...unpaced, BENCH_GATEWAY_DATABASE_URL: database.url }), database.drop])
    // BENCH_SEND_ABLATION=1: the same gateway with its two durable writes as in-memory stand-ins
    // (bench/children/gateway.ts): what the rest of a send leaves of the forwarder's rate
    if (process.env.BENCH_SEND_ABLATION === '1') {
      const ablated = await createPostgresDatabase(postgres)
      started.splice(2, 0, ['gateway (PostgreSQL), no writes (ablation)', await startChild('gateway', { ...unpaced, BENCH_GATEWAY_DATABASE_URL: ablated.url, BENCH_GATEWAY_ABLATION: 'no-writes' }), ablated.drop])
    }
  }
  return started.map(([name, child, drop]) => ({ name, ...child.ready, pid: child.pid, stop: async () => { await child.stop(); await drop?.() } }))
}

async function measure (subject: Subject, concurrency: number, offset: number) {
  const pool = new Pool(subject.url, { connections: concurrency })
  const failures: number[] = []
  const send = async (index: number) => {
    const response = await pool.request({
      method: 'POST',
      path: '/api/messages.php',
      headers: { authorization: subject.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ to: `1444${String(offset + index).padStart(7, '0')}`, body: 'Hello from the benchmark' })
    })
    await response.body.dump()
    if (response.statusCode !== 200) failures.push(response.statusCode)
  }
  try {
    for (let index = 0; index < WARMUP; index += concurrency) await Promise.all(Array.from({ length: concurrency }, async (_, slot) => await send(index + slot)))
    const cpuBefore = { server: processCpu(subject.pid), postgres: postgresCpu() }
    const { latencies, seconds } = await loadFor(DURATION_MS, concurrency, async index => await send(WARMUP + index))
    if (failures.length > 0) throw new Error(`${subject.name}: ${failures.length} non-200 answers (${[...new Set(failures)].join(', ')})`)
    // CPU per send of the server's process and of PostgreSQL (its backends run the gateway's statements)
    const perSend = (cpuSeconds: number) => (cpuSeconds * 1e6 / latencies.length).toFixed(0)
    const cpu = `${perSend(processCpu(subject.pid) - cpuBefore.server)} + ${perSend(postgresCpu() - cpuBefore.postgres)}`
    return { perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), cpu }
  } finally {
    await pool.close()
  }
}

// The emulator's own warm-up, before any server is measured: cold, it spent 0.6 ms on a send that it
// answers in 0.07 ms once its code is optimised, and the servers measured first (the gateways) paid for it.
const EMULATOR_WARMUP = 20_000

async function warmEmulator (url: string): Promise<void> {
  const { origin, path, headers } = messagesEndpoint(url)
  const pool = new Pool(origin, { connections: 32 })
  try {
    await load(EMULATOR_WARMUP, 32, async index => {
      // both shapes the servers send: the gateway's names its record, the forwarders' does not
      const body = { ...textMessage(`1777${String(index).padStart(7, '0')}`, 'warm-up'), ...(index % 2 === 0 ? { biz_opaque_callback_data: `msg_warmup${index}` } : {}) }
      const response = await pool.request({ method: 'POST', path, headers, body: JSON.stringify(body) })
      await response.body.dump()
    })
  } finally {
    await pool.close()
  }
}

export async function benchSend (): Promise<string> {
  const emulator = await startChild<{ url: string }>('emulator')
  await warmEmulator(emulator.ready.url)
  const all = await subjects(emulator.ready.url)
  const rows: (string | number)[][] = []
  let offset = 0
  try {
    for (const latencyMs of LATENCIES_MS) {
      for (const concurrency of CONCURRENCIES) {
        const rounds = new Map<Subject, Awaited<ReturnType<typeof measure>>[]>(all.map(subject => [subject, []]))
        for (let round = 0; round < ROUNDS; round++) {
          // each round starts with another server, so none is always measured first or last
          for (const subject of [...all.slice(round % all.length), ...all.slice(0, round % all.length)]) {
            // every server meets the same emulator: what earlier servers sent is forgotten (its records
            // of every request grow its heap, and its collections with them)
            await emulator.call('reset')
            await emulator.call('setFaults', 'global', latencyMs === 0 ? {} : { latencyMs })
            rounds.get(subject)!.push(await measure(subject, concurrency, offset += 1_000_000))
          }
        }
        const cell = all.map(subject => ({ subject, ...medianRound(rounds.get(subject)!) }))
        const bare = cell.find(result => result.subject.name === BARE)!
        // each gateway against that commit's on the same database (PostgreSQL against PostgreSQL)
        const beforeOf = (name: string) => cell.find(result => result.subject.name.startsWith(name.includes('PostgreSQL') ? 'gateway (PostgreSQL) at' : BEFORE_NAME))
        for (const result of cell) {
          const before = BEFORE ? beforeOf(result.subject.name) : undefined
          const ofBefore = BEFORE ? [before ? `${(result.perSecond / before.perSecond).toFixed(2)}×` : ''] : []
          rows.push([`${latencyMs} ms`, String(concurrency), result.subject.name, result.perSecond, `${(result.perSecond / bare.perSecond).toFixed(2)}×`, ...ofBefore, result.p50, `${(result.p50 / bare.p50).toFixed(2)}×`, result.p95, result.p99, result.cpu])
        }
      }
    }
  } finally {
    await Promise.all([...all.map(async subject => await subject.stop()), emulator.stop()])
  }
  return `Sends: ${DURATION_MS / 1000} s per server after ${WARMUP} warm-up sends, the servers of a cell back to back${ROUNDS > 1 ? ` in ${ROUNDS} rounds (each server's median round by sends/s)` : ''}; each server in its own process, the emulator in another (status webhooks off); ratios against the node:http + undici forwarder of the same cell; CPU µs/send: the server's process + PostgreSQL's processes\n\n` +
    table(['upstream latency', 'concurrency', 'server', 'sends/s', 'of bare', ...(BEFORE ? ['of before'] : []), 'p50 ms', 'p50 of bare', 'p95 ms', 'p99 ms', 'CPU µs/send'], rows)
}

function medianRound<T extends { perSecond: number }> (results: T[]): T {
  return [...results].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(results.length / 2)]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchSend())
}
