import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { startChild } from './child.js'
import { loadFor, percentile, table } from './lib.js'

// The send path through PgBouncer in transaction mode (DATABASE_POOL_MODE=transaction: nothing
// prepared, settings per transaction, no LISTEN) beside the same gateway reaching PostgreSQL directly,
// on one database, in alternating rounds of the same run. PgBouncer is started by
// scripts/pgbouncer.sh, or BENCH_PGBOUNCER_URL names one in transaction mode in front of the server.
const SEND_MS = Number(process.env.BENCH_SEND_MS ?? 3000)
const ROUNDS = Number(process.env.BENCH_POOLER_ROUNDS ?? 4)
const CONCURRENCIES = (process.env.BENCH_POOLER_CONCURRENCY ?? '1,16').split(',').map(Number)

async function sends (url: string, authorization: string, concurrency: number, offset: number) {
  const pool = new Pool(url, { connections: concurrency })
  try {
    const { latencies, seconds } = await loadFor(SEND_MS, concurrency, async index => {
      const response = await pool.request({
        method: 'POST',
        path: '/api/messages.php',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ to: `1444${String(offset + index).padStart(7, '0')}`, body: 'Hello from the benchmark' })
      })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`POST answered ${response.statusCode}`)
    })
    return { perSecond: latencies.length / seconds, p50: percentile(latencies, 50) }
  } finally {
    await pool.close()
  }
}

/** PgBouncer for the bench: BENCH_PGBOUNCER_URL's, or one of scripts/pgbouncer.sh in front of `server`, stopped afterwards. */
function pooler (server: URL): { url: URL, stop (): void } | undefined {
  if (process.env.BENCH_PGBOUNCER_URL) return { url: new URL(process.env.BENCH_PGBOUNCER_URL), stop () {} }
  const script = fileURLToPath(new URL('../scripts/pgbouncer.sh', import.meta.url))
  try {
    const [dir, url] = execFileSync(script, ['start', server.hostname, server.port || '5432'], { encoding: 'utf8' }).trim().split('\n')
    return { url: new URL(url), stop () { execFileSync(script, ['stop', dir]) } }
  } catch {
    return undefined
  }
}

export async function benchPooler (): Promise<string> {
  const server = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
  const bouncer = pooler(server)
  if (!bouncer) return 'skipped: PgBouncer could not start (apt-get install -y pgbouncer, or set BENCH_PGBOUNCER_URL)'
  const database = await createPostgresDatabase(server.toString()).catch(() => undefined)
  if (!database) {
    bouncer.stop()
    return `skipped: no PostgreSQL answers at ${server.host} (set BENCH_DATABASE_URL)`
  }
  const name = new URL(database.url).pathname
  const at = (base: URL) => Object.assign(new URL(base), { pathname: name }).toString()
  const emulator = await startChild<{ url: string }>('emulator')
  // one installation: both processes share ENCRYPTION_KEY, as an operator's do (the opt-out key is kept encrypted with it)
  const common = { GRAPH_API_URL: emulator.ready.url, THROUGHPUT_MPS: '100000', PAIR_RATE_BURST: '100000', RATE_LIMIT_MAX: '100000000', ENCRYPTION_KEY: randomBytes(32).toString('base64') }
  const direct = await startChild<{ url: string, authorization: string }>('gateway', { ...common, BENCH_GATEWAY_DATABASE_URL: at(server), DATABASE_POOL_MODE: 'session' })
  const pooled = await startChild<{ url: string, authorization: string }>('gateway', { ...common, BENCH_GATEWAY_DATABASE_URL: at(bouncer.url), DATABASE_POOL_MODE: 'transaction' })
  try {
    const rows: (string | number)[][] = []
    let offset = 0
    for (const concurrency of CONCURRENCIES) {
      const plain: Array<Awaited<ReturnType<typeof sends>>> = []
      const through: typeof plain = []
      for (let round = 0; round < ROUNDS; round++) {
        plain.push(await sends(direct.ready.url, direct.ready.authorization, concurrency, offset += 1_000_000))
        through.push(await sends(pooled.ready.url, pooled.ready.authorization, concurrency, offset += 1_000_000))
      }
      const rate = (cells: typeof plain) => cells.reduce((sum, cell) => sum + cell.perSecond, 0) / cells.length
      const p50 = (cells: typeof plain) => percentile(cells.map(cell => cell.p50), 50)
      rows.push([String(concurrency), rate(plain), p50(plain), rate(through), p50(through), rate(through) / rate(plain)])
    }
    return `Sends over HTTP (undici), upstream answering at once, one database: ${ROUNDS} rounds of ${SEND_MS / 1000} s on the gateway reaching PostgreSQL directly ` +
      '(session mode, statements prepared), then on the same gateway through PgBouncer in transaction mode (DATABASE_POOL_MODE=transaction), alternating; mean rate, median of the rounds\' p50\n\n' +
      table(['concurrency', 'direct sends/s', 'p50 ms', 'PgBouncer sends/s', 'p50 ms', 'ratio'], rows)
  } finally {
    await Promise.all([direct.stop(), pooled.stop(), emulator.stop()])
    await database.drop()
    bouncer.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchPooler())
}
