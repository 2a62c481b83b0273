import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { Pool } from 'undici'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { startChild, type Child } from './child.js'
import { busiestWindow, table } from './lib.js'

// Pacing shared by processes: a burst for one number sent through one gateway, or through two
// alternately, each on a fresh PostgreSQL database, with and without Redis. The emulator enforces
// the number's limit and records when it accepted each send; the rate is taken from those times.
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const BURSTS = [{ level: 'STANDARD', limit: 80, messages: 400 }, { level: 'HIGH', limit: 1000, messages: 2000 }]
const SETUPS = [{ processes: 1, redis: false }, { processes: 1, redis: true }, { processes: 2, redis: true }]
const WARMUP = 20
// every process of a deployment shares it: the second process decrypts the token the first stored
const ENCRYPTION_KEY = randomBytes(32).toString('base64')

type Gateway = Child<{ url: string, authorization: string }>
interface Stats { errors: Record<string, number>, accepted: number[] }
interface SharedRedis { url: string, clear (): Promise<void>, close (): Promise<void> }

export async function postgresAnswers (url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} })
  try {
    await sql`select 1`
    return true
  } catch {
    return false
  } finally {
    await sql.end({ timeout: 1 })
  }
}

/**
 * A Redis database of this bench's own (the highest-numbered empty one, never 0): the gateway's
 * key prefixes are fixed, so the number's pacing keys must not meet those of tests running beside
 * it. clear() deletes only the gateway's keys there. Undefined when Redis does not answer.
 */
export async function emptyRedisDatabase (serverUrl: string): Promise<SharedRedis | undefined> {
  const client = new Redis(serverUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null })
  client.on('error', () => {})
  try {
    await client.connect()
    for (let db = 15; db > 0; db--) {
      if (await client.select(db).then(() => true, () => false) && await client.dbsize() === 0) {
        const url = new URL(serverUrl)
        url.pathname = `/${db}`
        return {
          url: url.toString(),
          async clear () {
            for await (const keys of client.scanStream({ match: 'outbound:*', count: 500 }) as AsyncIterable<string[]>) if (keys.length > 0) await client.del(...keys)
          },
          async close () { client.disconnect() }
        }
      }
    }
  } catch {}
  client.disconnect()
  return undefined
}

async function send (pool: Pool, authorization: string, index: number): Promise<number> {
  try {
    const response = await pool.request({ method: 'POST', path: '/api/messages.php', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ to: `1444${String(index).padStart(7, '0')}`, body: 'Hello' }) })
    await response.body.dump()
    return response.statusCode
  } catch {
    return 0
  }
}

/** Sends `messages` at once, alternately through each gateway, after a warm-up; wall time and answers other than 200. */
async function burst (gateways: Gateway[], emulator: Child<{ url: string }>, messages: number): Promise<{ seconds: number, failed: number }> {
  const { authorization } = gateways[0].ready
  const pools = gateways.map(gateway => new Pool(gateway.ready.url, { connections: Math.min(256, Math.ceil(messages / gateways.length)) }))
  try {
    // JIT, connection pools and the number's level cache, then a pause that empties the limit's window
    await Promise.all(pools.map(async (pool, process) => { for (let index = 0; index < WARMUP; index++) await send(pool, authorization, 9_000_000 + process * WARMUP + index) }))
    await sleep(1500)
    await emulator.call('reset')
    const started = performance.now()
    const statuses = await Promise.all(Array.from({ length: messages }, async (_, index) => await send(pools[index % pools.length], authorization, index)))
    return { seconds: (performance.now() - started) / 1000, failed: statuses.filter(status => status !== 200).length }
  } finally {
    await Promise.all(pools.map(async pool => await pool.close()))
  }
}

function summarize (stats: Stats, limit: number): (string | number)[] {
  const times = [...stats.accepted].sort((a, b) => a - b)
  const rate = (times.length - 1) / ((times.at(-1)! - times[0]) / 1000)
  return [String(times.length), rate, `${(100 * rate / limit).toFixed(1)}%`, String(busiestWindow(times)), String(stats.errors[130429] ?? 0), String(stats.errors[131056] ?? 0)]
}

async function measure (setup: typeof SETUPS[number], { level, limit, messages }: typeof BURSTS[number], emulator: Child<{ url: string }>, redis: SharedRedis): Promise<(string | number)[]> {
  const database = await createPostgresDatabase(POSTGRES_URL)
  const gateways: Gateway[] = []
  try {
    await redis.clear()
    const env = {
      GRAPH_API_URL: emulator.ready.url, BENCH_GATEWAY_DATABASE_URL: database.url, REDIS_URL: setup.redis ? redis.url : '', ENCRYPTION_KEY,
      BENCH_THROUGHPUT_LEVEL: level, THROUGHPUT_MPS: '', PAIR_RATE_BURST: '100000', RATE_LIMIT_MAX: '100000000', DISPATCH_DEADLINE_MS: '120000'
    }
    // one after the other: the first migrates the database and connects the number
    gateways.push(await startChild('gateway', env))
    while (gateways.length < setup.processes) gateways.push(await startChild('gateway', { ...env, BENCH_GATEWAY_AUTHORIZATION: gateways[0].ready.authorization }))
    const { seconds, failed } = await burst(gateways, emulator, messages)
    const stats = await emulator.call<Stats>('stats')
    return [String(setup.processes), setup.redis ? 'PostgreSQL + Redis' : 'PostgreSQL', `${limit}/s (${level})`, String(messages), seconds, ...summarize(stats, limit), String(failed)]
  } finally {
    await Promise.all(gateways.map(async gateway => await gateway.stop()))
    await database.drop()
    await redis.clear()
  }
}

export async function benchTwoProcess (): Promise<string> {
  const redis = await emptyRedisDatabase(REDIS_URL)
  const missing = [!await postgresAnswers(POSTGRES_URL) && `no PostgreSQL answers at ${new URL(POSTGRES_URL).host}`, !redis && `no Redis answers at ${new URL(REDIS_URL).host} (or none of its databases 1–15 is empty)`].filter(Boolean)
  if (missing.length > 0) {
    await redis?.close()
    return `Skipped: ${missing.join('; ')}. Set BENCH_DATABASE_URL and BENCH_REDIS_URL.`
  }
  const rows: (string | number)[][] = []
  try {
    for (const shape of BURSTS) {
      const emulator = await startChild<{ url: string }>('emulator', { EMULATOR_THROUGHPUT_MPS: String(shape.limit) })
      try {
        for (const setup of SETUPS) rows.push(await measure(setup, shape, emulator, redis!))
      } finally {
        await emulator.stop()
      }
    }
  } finally {
    await redis!.close()
  }
  return `Two processes: a burst for one number offered at once (${BURSTS.map(({ messages, level }) => `${messages} at ${level}`).join(', ')}), alternately through each gateway, after ${WARMUP} warm-up sends per process; every setup on a fresh PostgreSQL database, Redis shared through one database of its own; distinct recipients. Rate = (accepted − 1) / (last − first acceptance) as the emulator saw them\n\n` +
    table(['processes', 'shared state', 'limit', 'messages', 'elapsed s', 'accepted', 'accepted/s', 'of limit', 'busiest 1 s window', '130429', '131056', 'not 200'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchTwoProcess())
}
