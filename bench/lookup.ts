import postgres from 'postgres'
import { Pool } from 'undici'
import { generateApiKey } from '../src/crypto/api-key.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { startChild } from './child.js'
import { loadFor, percentile, table } from './lib.js'

// GET /api/messages.php with 1,000,000 stored messages in one workspace (PostgreSQL), beside the
// same reads on a workspace of 1,000 in the same database; then POST with and without an
// Idempotency-Key, alternately, in the same run.
const ROWS = Number(process.env.BENCH_LOOKUP_ROWS ?? 1_000_000)
const SMALL = 1000
const READS = Number(process.env.BENCH_LOOKUP_READS ?? 300)
const SEND_MS = Number(process.env.BENCH_SEND_MS ?? 2000)
const ROUNDS = 4

/** `count` messages for the workspace: ~30 days, 10,000 recipients, every status, 1 in 10 with a client_reference, one `delivered` event each. */
async function seed (sql: postgres.Sql, workspaceId: string, count: number, tag: string): Promise<void> {
  await sql.unsafe(`
    insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, error_code, error_text, attempts, client_reference, sent_at, created_at, updated_at)
    select 'msg_${tag}' || lpad(n::text, 8, '0'), '${workspaceId}', '106540352242922', '1555' || lpad((n % 10000)::text, 7, '0'), 'text',
           '{"type":"text","text":{"body":"Hello"}}'::jsonb,
           (array['read','read','read','read','read','read','delivered','sent','failed','failed'])[n % 10 + 1],
           case when n % 10 >= 8 then null else 'wamid.${tag}' || n end,
           case when n % 10 >= 8 then '131026' end, case when n % 10 >= 8 then 'Message undeliverable' end,
           1, case when n % 10 = 3 then 'ref-${tag}-' || (n / 10) end,
           case when n % 10 < 8 then at end, at, at
    from (select n, now() - interval '30 days' + (n::float / ${count}) * interval '30 days' as at from generate_series(1, ${count}) n) s`)
  await sql.unsafe(`
    insert into message_events (id, message_id, wamid, status, upstream_timestamp, payload)
    select 'evt_${tag}' || substr(id, 8), id, wamid, 'delivered', created_at + interval '1 second', '{}'::jsonb
    from messages where workspace_id = '${workspaceId}' and wamid is not null`)
}

interface Reader { authorization: string, queries: Record<string, string>[] }

/** READS sequential GETs for each reader, alternating between them so that both see the same moments of a noisy machine. */
async function reads (url: string, readers: Reader[]): Promise<Array<{ p50: number, p95: number, p99: number }>> {
  const pool = new Pool(url, { connections: 1 })
  const latencies: number[][] = readers.map(() => [])
  try {
    for (let index = 0; index < READS + 20; index++) {
      for (const [which, { authorization, queries }] of readers.entries()) {
        const started = performance.now()
        const response = await pool.request({ method: 'GET', path: `/api/messages.php?${new URLSearchParams(queries[index % queries.length])}`, headers: { authorization } })
        await response.body.dump()
        if (response.statusCode !== 200) throw new Error(`GET answered ${response.statusCode}`)
        if (index >= 20) latencies[which].push(performance.now() - started)
      }
    }
  } finally {
    await pool.close()
  }
  return latencies.map(values => ({ p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99) }))
}

/** What each read asks of a workspace: sample ids, wamids, recipients and references, and a cursor 90% deep. */
async function workload (sql: postgres.Sql, workspaceId: string, count: number): Promise<[string, Record<string, string>[]][]> {
  const sample = await sql`select id, wamid, recipient from messages where workspace_id = ${workspaceId} and wamid is not null order by random() limit 50`
  const references = await sql`select client_reference from messages where workspace_id = ${workspaceId} and client_reference is not null order by random() limit 50`
  const [deep] = await sql`select id from messages where workspace_id = ${workspaceId} order by created_at desc, id desc offset ${Math.floor(count * 0.9)} limit 1`
  const cursor = Buffer.from(`m1:${deep.id as string}`).toString('base64url')
  const since = new Date(Date.now() - 15 * 86_400_000).toISOString()
  return [
    ['lookup by id (with history)', sample.map(row => ({ id: row.id as string }))],
    ['lookup by wamid (with history)', sample.map(row => ({ wamid: row.wamid as string }))],
    ['list, first page of 50', [{}]],
    ['list ?status=failed', [{ status: 'failed' }]],
    ['list ?to=', sample.map(row => ({ to: row.recipient as string }))],
    ['list ?client_reference=', references.map(row => ({ client_reference: row.client_reference as string }))],
    ['list ?since= (15 days ago)', [{ since }]],
    ['list ?status=sent&since=', [{ status: 'sent', since }]],
    ['list, a cursor 90% deep', [{ cursor }]]
  ]
}

async function sends (url: string, authorization: string, keyed: boolean, concurrency: number, offset: number) {
  const pool = new Pool(url, { connections: concurrency })
  try {
    const { latencies, seconds } = await loadFor(SEND_MS, concurrency, async index => {
      const response = await pool.request({
        method: 'POST',
        path: '/api/messages.php',
        headers: { authorization, 'content-type': 'application/json', ...(keyed && { 'idempotency-key': `bench-${offset}-${index}` }) },
        body: JSON.stringify({ to: `1444${String(offset + index).padStart(7, '0')}`, body: 'Hello from the benchmark' })
      })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`POST answered ${response.statusCode}`)
    })
    return { perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) }
  } finally {
    await pool.close()
  }
}

export async function benchLookup (): Promise<string> {
  const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const database = await createPostgresDatabase(server).catch(() => undefined)
  if (!database) return `skipped: no PostgreSQL answers at ${new URL(server).host} (set BENCH_DATABASE_URL)`
  const emulator = await startChild<{ url: string }>('emulator')
  const gateway = await startChild<{ url: string, authorization: string }>('gateway', {
    GRAPH_API_URL: emulator.ready.url, BENCH_GATEWAY_DATABASE_URL: database.url, THROUGHPUT_MPS: '100000', PAIR_RATE_BURST: '100000', RATE_LIMIT_MAX: '100000000'
  })
  const sql = postgres(database.url, { max: 1, onnotice: () => {} })
  try {
    const { url, authorization } = gateway.ready
    const [{ workspace_id: big }] = await sql`select workspace_id from api_keys limit 1`
    const small = 'ws_benchsmall'
    const key = generateApiKey()
    await sql`insert into workspaces (id, name, plan) values (${small}, 'bench small', 'scale')`
    await sql`insert into api_keys (id, workspace_id, name, prefix, secret_hash) values ('key_benchsmall', ${small}, 'bench', ${key.prefix}, ${key.secretHash})`
    const seeded = performance.now()
    await seed(sql, big as string, ROWS, 'b')
    await seed(sql, small, SMALL, 's')
    // what autovacuum would otherwise do in the middle of the measurements
    await sql`vacuum (analyze) messages, message_events`
    const seedSeconds = (performance.now() - seeded) / 1000

    const rows: (string | number)[][] = []
    const smallLoad = await workload(sql, small, SMALL)
    const bigLoad = await workload(sql, big as string, ROWS)
    for (const [index, [name, queries]] of bigLoad.entries()) {
      const [few, many] = await reads(url, [{ authorization: `Bearer ${key.secret}`, queries: smallLoad[index][1] }, { authorization, queries }])
      rows.push([name, few.p50, few.p95, many.p50, many.p95, many.p99, many.p50 / few.p50])
    }
    // plain and keyed in alternating rounds, so that both meet the same moments of a shared machine
    const sendRows: (string | number)[][] = []
    let offset = 0
    for (const concurrency of [1, 16]) {
      const plain: Array<Awaited<ReturnType<typeof sends>>> = []
      const keyed: typeof plain = []
      for (let round = 0; round < ROUNDS; round++) {
        plain.push(await sends(url, authorization, false, concurrency, offset += 1_000_000))
        keyed.push(await sends(url, authorization, true, concurrency, offset += 1_000_000))
      }
      const rate = (cells: typeof plain) => cells.reduce((sum, cell) => sum + cell.perSecond, 0) / cells.length
      const p50 = (cells: typeof plain) => percentile(cells.map(cell => cell.p50), 50)
      sendRows.push([String(concurrency), rate(plain), p50(plain), rate(keyed), p50(keyed), rate(keyed) / rate(plain)])
    }
    return `Reads: ${READS} sequential GETs per row and workspace over HTTP (undici, one connection, the two workspaces alternating), gateway on PostgreSQL; ${ROWS.toLocaleString('en')} messages ` +
      `(and a delivered event for each one sent) in one workspace, ${SMALL.toLocaleString('en')} in another of the same database (seeded in ${seedSeconds.toFixed(0)} s)\n\n` +
      table(['read', `${SMALL} msgs p50 ms`, 'p95 ms', `${ROWS / 1e6}M msgs p50 ms`, 'p95 ms', 'p99 ms', 'p50 ratio'], rows) +
      `\n\nSends on the same gateway, upstream answering at once: ${ROUNDS} rounds of ${SEND_MS / 1000} s without a key then ${SEND_MS / 1000} s with one (mean rate, median of the rounds' p50)\n\n` +
      table(['concurrency', 'no key sends/s', 'p50 ms', 'Idempotency-Key sends/s', 'p50 ms', 'ratio'], sendRows)
  } finally {
    await sql.end()
    await Promise.all([gateway.stop(), emulator.stop()])
    await database.drop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchLookup())
}
