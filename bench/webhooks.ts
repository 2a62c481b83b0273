import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'
import { signBody } from '../src/sandbox/emulator/index.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { TEST_ENCRYPTION_KEY } from '../tests/helpers/config.js'
import { startChild } from './child.js'
import { load, machine, percentile, postgresCpu, processCpu, table } from './lib.js'

// Status webhooks as Meta sends them: one status per POST, 32 POSTs in flight, each a `delivered`
// for a real record (its wamid inserted first). The gateway and a bare verify+parse server each run
// in a process of their own; "applied/s" counts until the gateway's inbox is drained, not only
// acknowledged. One HIGH number at 1,000 messages/s needs 3,000 statuses/s.
// Long enough for the bare server's rate to settle: over 6,000 POSTs (under a second) it measured
// 20–40% below its rate over 20,000, which flattered every ratio against it.
const POSTS = Number(process.env.BENCH_WEBHOOK_POSTS ?? 20_000)
const WARMUP = 2000
const CONCURRENCY = 32
const SECRET = 'bench-app-secret'
const HIGH_NEEDS = 3000

function statusBody (phoneNumberId: string, index: number): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: {
      messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
      statuses: [{ id: `wamid.bench-${index}`, status: 'delivered', timestamp: String(1_795_000_000 + index), recipient_id: '15550001111',
        pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category: 'utility' } }]
    } }] }]
  })
}

interface Ready { url: string, phoneNumberId?: string }

async function run (label: string, child: string, env: Record<string, string>): Promise<(string | number)[]> {
  const server = await startChild<Ready>(child, { APP_SECRET: SECRET, BENCH_WAMIDS: String(POSTS + WARMUP), ...env })
  const pool = new Pool(server.ready.url, { connections: CONCURRENCY })
  const phoneNumberId = server.ready.phoneNumberId ?? '106540352242922'
  const post = async (index: number): Promise<void> => {
    const raw = statusBody(phoneNumberId, index)
    const response = await pool.request({ method: 'POST', path: '/webhooks/whatsapp', body: raw, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(raw, SECRET) } })
    await response.body.dump()
    if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`)
  }
  try {
    await load(WARMUP, CONCURRENCY, async index => await post(POSTS + index))
    while (await server.call<number>('backlog') > 0) await new Promise(resolve => setTimeout(resolve, 50))
    const started = performance.now()
    const cpuBefore = { server: processCpu(server.pid), postgres: postgresCpu() }
    const { latencies, seconds } = await load(POSTS, CONCURRENCY, post)
    while (await server.call<number>('backlog') > 0) await new Promise(resolve => setTimeout(resolve, 20))
    const drained = (performance.now() - started) / 1000
    // CPU per status, the server's process and PostgreSQL's (the load generator in this process is not counted)
    const perStatus = (seconds: number) => (seconds * 1e6 / POSTS).toFixed(0)
    const cpu = `${perStatus(processCpu(server.pid) - cpuBefore.server)} + ${perStatus(postgresCpu() - cpuBefore.postgres)}`
    const delivered = await server.call<number>('delivered')
    if (child !== 'webhook-baseline' && !env.BENCH_WEBHOOK_ABLATION && delivered !== POSTS + WARMUP) throw new Error(`${delivered} records delivered, expected ${POSTS + WARMUP}`)
    return [label, POSTS / seconds, POSTS / drained, percentile(latencies, 50), percentile(latencies, 95), percentile(latencies, 99), cpu]
  } finally {
    await pool.close()
    await server.stop()
  }
}

type Row = (string | number)[]

/** A gateway run and the bare run just before it (the machine is shared and its load moves), with the ratios. */
async function pair (label: string, env: Record<string, string>): Promise<Row[]> {
  const bare = await run('  baseline: verify + parse (Fastify, no database)', 'webhook-baseline', {})
  const gateway = await run(label, 'webhook-gateway', env)
  const ratios = (row: Row) => [...row.slice(0, 3), `${((row[2] as number) / (bare[1] as number)).toFixed(2)}×`, `${((row[2] as number) / HIGH_NEEDS).toFixed(2)}×`, ...row.slice(3)]
  return [ratios(gateway), ratios(bare)]
}

// BENCH_WEBHOOK_ABLATION=1 adds, after each backend's pair, the same gateway storing deliveries without
// applying them: what the durable store alone leaves of the bare server's rate (acked/s; nothing is applied).
const ABLATION = process.env.BENCH_WEBHOOK_ABLATION === '1'

/** The store-only gateway, its ratio against the bare run just before it (`bare`). */
async function storeOnly (label: string, env: Record<string, string>, bare: Row): Promise<Row> {
  const row = await run(label, 'webhook-gateway', { ...env, BENCH_WEBHOOK_ABLATION: 'store-only' })
  return [row[0], row[1], '-', `${((row[1] as number) / (bare[1] as number)).toFixed(2)}× (acked)`, `${((row[1] as number) / HIGH_NEEDS).toFixed(2)}×`, ...row.slice(3)]
}

export async function benchWebhooks (): Promise<string> {
  const rows: Row[] = []
  const only = process.env.BENCH_WEBHOOK_ONLY // 'pglite' or 'postgres'
  if (only !== 'postgres') {
  const dataDir = await mkdtemp(join(tmpdir(), 'outbound-bench-webhooks-'))
  try {
    const [gateway, bare] = await pair('gateway, PGlite on disk (embedded default)', { DATA_DIR: dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY })
    rows.push(gateway, bare)
    if (ABLATION) rows.push(await storeOnly('gateway, PGlite on disk, store only (ablation)', { DATA_DIR: join(dataDir, 'ablation'), ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }, bare))
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
  }
  if (only !== 'pglite') {
  const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const database = await createPostgresDatabase(server)
  let bare: Row
  try {
    const [gateway, baseline] = await pair('gateway, PostgreSQL', { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY })
    rows.push(gateway, baseline)
    bare = baseline
  } finally {
    await database.drop()
  }
  if (ABLATION) {
    // a database of its own: the gateway's run above left its records delivered
    const fresh = await createPostgresDatabase(server)
    try {
      rows.push(await storeOnly('gateway, PostgreSQL, store only (ablation)', { DATABASE_URL: fresh.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }, bare))
    } finally {
      await fresh.drop()
    }
  }
  }
  return `Webhook intake: ${POSTS} POSTs of one \`delivered\` status each after ${WARMUP} warm-up, ${CONCURRENCY} in flight; each server in its own process (${machine()}). ` +
    `applied/s: until the inbox is drained (every record delivered); vs bare: applied/s over the acknowledged/s of the bare run made just before; ` +
    `vs HIGH: over the ${HIGH_NEEDS} statuses/s one HIGH number (1,000 mps) needs.\n\n` +
    `CPU µs/status: the server's process + PostgreSQL's processes, per status applied.\n\n` +
    table(['server', 'acked/s', 'applied/s', 'vs bare', 'vs HIGH', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU µs/status'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchWebhooks())
}
