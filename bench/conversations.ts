import { readdirSync, readFileSync } from 'node:fs'
import postgres from 'postgres'
import { Pool } from 'undici'
import { encodeKeyset } from '../src/conversations/cursor.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { startChild } from './child.js'
import { loadFor, percentile, table } from './lib.js'

// GET /api/conversations.php on PostgreSQL with MESSAGES messages (half sent, half received) in
// CONVERSATIONS conversations of one workspace: the list (its first page, and a page 20 pages deep)
// and a thread's first page; then the send path with the workspace's read_receipts `manual` and
// `on_reply`, alternately, to people with an unread message, and beside them the baseline doing the
// same necessary work as on_reply: `manual`, the client marking the message read by API after each
// send (on_reply makes that upstream call too). Issue 39 asks 1,000,000 / 100,000;
// BENCH_CONVERSATION_MESSAGES / BENCH_CONVERSATIONS run it smaller.
const MESSAGES = Number(process.env.BENCH_CONVERSATION_MESSAGES ?? 1_000_000)
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000)
const READS = Number(process.env.BENCH_CONVERSATION_READS ?? 300)
const SEND_MS = Number(process.env.BENCH_SEND_MS ?? 2000)
const ROUNDS = 4
const NUMBER = '106540352242922'
const person = (n: string) => `'1444' || lpad((${n})::text, 7, '0')`

/** The messages, through the triggers that keep the conversations' rows (one statement each way). */
async function seed (sql: postgres.Sql, workspaceId: string): Promise<void> {
  const half = Math.floor(MESSAGES / 2)
  await sql.unsafe(`
    insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, attempts, sent_at, created_at, updated_at)
    select 'msg_c' || lpad(n::text, 8, '0'), '${workspaceId}', '${NUMBER}', ${person(`n % ${CONVERSATIONS}`)}, 'text',
           '{"type":"text","text":{"body":"Hello"}}'::jsonb, 'delivered', 'wamid.c' || n, 1, at, at, at
    from (select n, now() - interval '30 days' + (n::float / ${half}) * interval '30 days' as at from generate_series(1, ${half}) n) s`)
  // the last message of each conversation is unread
  await sql.unsafe(`
    insert into inbound_messages (id, workspace_id, phone_number_id, wamid, "from", type, payload, received_at, read_at)
    select 'in_c' || lpad(n::text, 8, '0'), '${workspaceId}', '${NUMBER}', 'wamid.in.c' || n, ${person(`n % ${CONVERSATIONS}`)}, 'text',
           '{"type":"text","text":{"body":"Hi"}}'::jsonb, at, case when n > ${half - CONVERSATIONS} then null else at end
    from (select n, now() - interval '30 days' + ((n::float + 0.5) / ${half}) * interval '30 days' as at from generate_series(1, ${half}) n) s`)
}

async function reads (url: string, authorization: string, queries: string[]): Promise<{ p50: number, p95: number, p99: number }> {
  const pool = new Pool(url, { connections: 1 })
  const latencies: number[] = []
  try {
    for (let index = 0; index < READS + 20; index++) {
      const started = performance.now()
      const response = await pool.request({ method: 'GET', path: `/api/conversations.php?${queries[index % queries.length]}`, headers: { authorization } })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`GET answered ${response.statusCode}`)
      if (index >= 20) latencies.push(performance.now() - started)
    }
  } finally {
    await pool.close()
  }
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99) }
}

/** CPU time (user + system) of a process, ms, from /proc (100 ticks a second). */
function cpuMsOf (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0 // it ended meanwhile
  }
}

/** CPU ms so far of the gateway, the emulator, this process (the client) and every PostgreSQL process. */
function cpuNow (gatewayPid: number, emulatorPid: number): Record<CpuPart, number> {
  const postgresPids = readdirSync('/proc').filter(entry => /^\d+$/.test(entry)).map(Number)
    .filter(pid => { try { return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres' } catch { return false } })
  const client = process.cpuUsage()
  return { gateway: cpuMsOf(gatewayPid), emulator: cpuMsOf(emulatorPid), postgres: postgresPids.reduce((sum, pid) => sum + cpuMsOf(pid), 0), client: (client.user + client.system) / 1000 }
}
type CpuPart = 'gateway' | 'emulator' | 'postgres' | 'client'
const CPU_PARTS: CpuPart[] = ['gateway', 'postgres', 'emulator', 'client']

/** The seeded unread message of conversation `p` (seed: the last CONVERSATIONS inbound messages are unread). */
function unreadOf (p: number): string {
  const half = Math.floor(MESSAGES / 2)
  return `in_c${String(p === 0 ? half : half - CONVERSATIONS + p).padStart(8, '0')}`
}

/** Sends to one person after another; with `markByApi`, each followed by the client's own read mark of that person's unread message. */
async function sends (url: string, authorization: string, concurrency: number, first: number, markByApi = false) {
  const pool = new Pool(url, { connections: concurrency })
  try {
    const { latencies, seconds } = await loadFor(SEND_MS, concurrency, async index => {
      const p = (first + index) % CONVERSATIONS
      const response = await pool.request({
        method: 'POST',
        path: '/api/messages.php',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ to: `1444${String(p).padStart(7, '0')}`, body: 'Hello from the benchmark' })
      })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`POST answered ${response.statusCode}`)
      if (!markByApi) return
      const marked = await pool.request({ method: 'POST', path: `/api/inbound.php?id=${unreadOf(p)}&action=read`, headers: { authorization } })
      await marked.body.dump()
      if (marked.statusCode !== 200) throw new Error(`action=read answered ${marked.statusCode}`)
    })
    return { count: latencies.length, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) }
  } finally {
    await pool.close()
  }
}

export async function benchConversations (): Promise<string> {
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
    const [{ workspace_id: workspaceId }] = await sql`select workspace_id from api_keys limit 1`
    const seeded = performance.now()
    await seed(sql, workspaceId as string)
    // the unread messages' wamids, so that the read marks on_reply causes are accepted, as they would be
    const half = Math.floor(MESSAGES / 2)
    await emulator.call('knowInbound', NUMBER, 'wamid.in.c', half - CONVERSATIONS + 1, half)
    await sql`vacuum (analyze) messages, inbound_messages, conversations`
    const seedSeconds = (performance.now() - seeded) / 1000
    const [{ count }] = await sql`select count(*)::int as count from conversations where workspace_id = ${workspaceId as string}`

    const [deep] = await sql`select to_char(last_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, phone_number_id, person from conversations
      where workspace_id = ${workspaceId as string} order by last_at desc, phone_number_id desc, person desc offset 1000 limit 1`
    const people = await sql`select person from conversations where workspace_id = ${workspaceId as string} order by random() limit 50`
    const rows: (string | number)[][] = []
    for (const [name, queries] of [
      ['list, first page of 50', ['']],
      ['list, 20 pages deep', [`cursor=${encodeKeyset([deep.at as string, deep.phone_number_id as string, deep.person as string])}`]],
      ['thread, first page of 50', people.map(row => `to=${row.person as string}`)]
    ] as const) {
      const measured = await reads(url, authorization, [...queries])
      rows.push([name, measured.p50, measured.p95, measured.p99])
    }

    // manual and on_reply in alternating rounds, each to people with an unread message (a read mark
    // follows each on_reply send, accepted by the emulator)
    const sendRows: (string | number)[][] = []
    // CPU per send by process, summed over the rounds of each cell
    const cpu: Record<number, Record<string, Record<CpuPart | 'sends', number>>> = {}
    let next = 0
    for (const concurrency of [1, 16]) {
      const cells: Record<'manual' | 'marked by the client' | 'on_reply', Array<Awaited<ReturnType<typeof sends>>>> = { manual: [], 'marked by the client': [], on_reply: [] }
      cpu[concurrency] = Object.fromEntries(Object.keys(cells).map(cell => [cell, { gateway: 0, emulator: 0, postgres: 0, client: 0, sends: 0 }]))
      for (let round = 0; round < ROUNDS; round++) {
        for (const cell of ['manual', 'marked by the client', 'on_reply'] as const) {
          const policy = cell === 'on_reply' ? 'on_reply' : 'manual'
          await sql`update workspaces set read_receipts = ${policy} where id = ${workspaceId as string}`
          // each process reads the policy at most once a second
          await new Promise(resolve => setTimeout(resolve, 1200))
          const before = cpuNow(gateway.pid, emulator.pid)
          const measured = await sends(url, authorization, concurrency, next, cell === 'marked by the client')
          const after = cpuNow(gateway.pid, emulator.pid)
          for (const part of CPU_PARTS) cpu[concurrency][cell][part] += after[part] - before[part]
          cpu[concurrency][cell].sends += measured.count
          next += measured.count
          cells[cell].push(measured)
        }
      }
      const rate = (list: typeof cells.manual) => list.reduce((sum, cell) => sum + cell.perSecond, 0) / list.length
      const p50 = (list: typeof cells.manual) => percentile(list.map(cell => cell.p50), 50)
      sendRows.push([String(concurrency), rate(cells.manual), p50(cells.manual), rate(cells['marked by the client']), rate(cells.on_reply), p50(cells.on_reply),
        (rate(cells.on_reply) / rate(cells.manual)).toFixed(2), (rate(cells.on_reply) / rate(cells['marked by the client'])).toFixed(2)])
    }
    return `${READS} sequential GETs per row over HTTP (undici, one connection), gateway on PostgreSQL; ${MESSAGES.toLocaleString('en')} messages (half sent, half received) ` +
      `in ${Number(count).toLocaleString('en')} conversations of one workspace (seeded through the triggers in ${seedSeconds.toFixed(0)} s)\n\n` +
      table(['read', 'p50 ms', 'p95 ms', 'p99 ms'], rows) +
      `\n\nSends to people with an unread message, upstream answering at once: ${ROUNDS} rounds of ${SEND_MS / 1000} s each of read_receipts manual, ` +
      'manual with the client marking each person\'s message read by API after its send (the same upstream work as on_reply), and on_reply (mean rate, median of the rounds\' p50)\n\n' +
      table(['concurrency', 'manual sends/s', 'p50 ms', 'marked by the client, sends/s', 'on_reply sends/s', 'p50 ms', 'on_reply / manual', 'on_reply / marked by the client'], sendRows) +
      '\n\nCPU per send, µs, by process (from /proc, over the rounds; PostgreSQL: all its processes)\n\n' +
      table(['concurrency', 'cell', ...CPU_PARTS, 'all'], Object.entries(cpu).flatMap(([concurrency, byCell]) => Object.entries(byCell).map(([cell, used]) =>
        [concurrency, cell, ...CPU_PARTS.map(part => (1000 * used[part] / used.sends).toFixed(0)), (1000 * CPU_PARTS.reduce((sum, part) => sum + used[part], 0) / used.sends).toFixed(0)])))
  } finally {
    await sql.end()
    await Promise.all([gateway.stop(), emulator.stop()])
    await database.drop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchConversations())
}
