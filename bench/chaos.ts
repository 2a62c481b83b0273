import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import postgres from 'postgres'
import { Pool } from 'undici'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { startFaultProxy, type FaultProxy } from '../tests/helpers/fault-proxy.js'
import { startChild } from './child.js'
import { load, table } from './lib.js'
import { emptyRedisDatabase, postgresAnswers } from './two-process.js'

// Foul weather (CONTRACT.md 12): sends, half synchronous and half queued, while fault proxies cut
// PostgreSQL and Redis in turn, each several times for a few seconds. The gateway, the emulator and
// the load run in processes of their own; the proxies and the load in this one.
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const SENDS = Number(process.env.BENCH_CHAOS_SENDS ?? 10_000)
const CONCURRENCY = Number(process.env.BENCH_CHAOS_CONCURRENCY ?? 64)
const CUTS = Number(process.env.BENCH_CHAOS_CUTS ?? 3)
const [CUT_MIN_MS, CUT_MAX_MS] = (process.env.BENCH_CHAOS_CUT_MS ?? '2000-5000').split('-').map(Number)
const GAP_MS = Number(process.env.BENCH_CHAOS_GAP_MS ?? 4000)
const SETTLE_MS = Number(process.env.BENCH_CHAOS_SETTLE_MS ?? 180_000)
// a failure that says nothing was sent: the emulator must not have accepted it
const NOT_SENT = new Set(['limits_unavailable', 'database_unavailable', 'dispatch_timeout', 'queue_full', 'cancelled', 'expired'])
// a failure whose outcome is unknown: it may or may not have been accepted
const UNKNOWN = new Set(['upstream_timeout', 'outcome_unknown', 'upstream_invalid_response'])
const DONE = new Set(['sent', 'delivered', 'read', 'failed'])

interface Answer { status: number, retryAfter: boolean, id?: string }
interface Heal { dependency: string, cutMs: number, recoveryMs: number }

/** Whether a record the client was told about did not end truthfully: missing, still in flight, or contradicted by the upstream. */
function isLost (record: { status: string, error_code: string | null } | undefined, acceptedTimes: number): boolean {
  if (!record || !DONE.has(record.status)) return true
  // it says sent, and the upstream never had it
  if (record.status !== 'failed') return acceptedTimes === 0
  const code = record.error_code ?? ''
  // it says nothing was sent, and the upstream had it
  if (NOT_SENT.has(code)) return acceptedTimes > 0
  // the upstream's own refusal, or an outcome truthfully unknown; anything else (internal_error, interrupted in a live process) is no reason
  return !(UNKNOWN.has(code) || /^\d+$/.test(code))
}

async function post (pool: Pool, authorization: string, to: string, queued: boolean): Promise<Answer> {
  try {
    const response = await pool.request({ method: 'POST', path: '/api/messages.php', headers: { authorization, 'content-type': 'application/json', ...(queued && { prefer: 'respond-async' }) }, body: JSON.stringify({ to, body: 'Hello' }) })
    const body = await response.body.json() as { id?: string }
    return { status: response.statusCode, retryAfter: response.headers['retry-after'] !== undefined, id: body.id }
  } catch {
    return { status: 0, retryAfter: false }
  }
}

/** Cuts PostgreSQL and Redis in turn, CUTS times each; after each heal, the time until a request that needs it succeeds again. */
async function chaos (proxies: Record<'PostgreSQL' | 'Redis', FaultProxy>, probe: Record<'PostgreSQL' | 'Redis', () => Promise<boolean>>): Promise<Heal[]> {
  const heals: Heal[] = []
  for (let round = 0; round < CUTS * 2; round++) {
    const dependency = round % 2 === 0 ? 'PostgreSQL' : 'Redis'
    await sleep(GAP_MS)
    const cutMs = Math.round(CUT_MIN_MS + Math.random() * (CUT_MAX_MS - CUT_MIN_MS))
    proxies[dependency].cut()
    await sleep(cutMs)
    proxies[dependency].heal()
    const healed = Date.now()
    while (!await probe[dependency]()) await sleep(50)
    heals.push({ dependency, cutMs, recoveryMs: Date.now() - healed })
  }
  return heals
}

export async function benchChaos (): Promise<string> {
  const redis = await emptyRedisDatabase(REDIS_URL)
  if (!redis || !await postgresAnswers(POSTGRES_URL)) {
    await redis?.close()
    return `Skipped: it needs PostgreSQL (${new URL(POSTGRES_URL).host}) and Redis (${new URL(REDIS_URL).host}). Set BENCH_DATABASE_URL and BENCH_REDIS_URL.`
  }
  const database = await createPostgresDatabase(POSTGRES_URL)
  const proxies = {
    PostgreSQL: await startFaultProxy({ port: Number(new URL(database.url).port || 5432) }),
    Redis: await startFaultProxy({ port: Number(new URL(redis.url).port || 6379) })
  }
  const emulator = await startChild<{ url: string }>('emulator', {})
  const gateway = await startChild<{ url: string, authorization: string }>('gateway', {
    GRAPH_API_URL: emulator.ready.url, BENCH_GATEWAY_DATABASE_URL: proxies.PostgreSQL.url(database.url), REDIS_URL: proxies.Redis.url(redis.url),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'), BENCH_THROUGHPUT_LEVEL: 'HIGH', THROUGHPUT_MPS: '', PAIR_RATE_BURST: '100000', RATE_LIMIT_MAX: '100000000'
  })
  const { authorization } = gateway.ready
  const pool = new Pool(gateway.ready.url, { connections: CONCURRENCY + 4 })
  const direct = postgres(database.url, { max: 2, onnotice: () => {} })
  const answers: Answer[] = []
  const ids = new Set<string>()
  const note = (answer: Answer) => { answers.push(answer); if (answer.id) ids.add(answer.id) }
  let probes = 0
  try {
    const probe = {
      PostgreSQL: async () => (await pool.request({ method: 'GET', path: `/api/messages.php?limit=1`, headers: { authorization } }).then(async response => { await response.body.dump(); return response.statusCode }, () => 0)) === 200,
      // its own recipients, apart from the load's (one per offered send)
      Redis: async () => { const answer = await post(pool, authorization, `1445${String(probes++).padStart(7, '0')}`, false); if (answer.id) ids.add(answer.id); return answer.status === 200 }
    }
    const started = Date.now()
    const [heals, run] = await Promise.all([chaos(proxies, probe), load(SENDS, CONCURRENCY, async index => {
      // a client as the 503's Retry-After asks: the same message again, later (nothing was sent)
      for (let tries = 0; tries < 100; tries++) {
        const answer = await post(pool, authorization, `1444${String(index).padStart(7, '0')}`, index % 2 === 1)
        note(answer)
        if (answer.status !== 503 && answer.status !== 0) return
        await sleep(answer.retryAfter ? 500 : 100)
      }
    })])
    const settledBy = Date.now() + SETTLE_MS
    // every record, also those no answer named (a write whose reply was lost: the client was told 503)
    let records: Array<{ id: string, status: string, error_code: string | null }> = []
    for (;;) {
      records = await direct`select id, status, error_code from messages`
      if (records.every(record => DONE.has(record.status)) || Date.now() > settledBy) break
      await sleep(500)
    }
    const accepted = await emulator.call<string[]>('acceptedIds')
    const times = new Map<string, number>()
    for (const id of accepted) times.set(id, (times.get(id) ?? 0) + 1)
    // each offered send has a recipient of its own: two acceptances for one recipient are the same
    // message sent twice, be it one record sent twice or a 503 retried whose first try went out
    const perRecipient = new Map<string, number>()
    for (const to of await emulator.call<string[]>('acceptedRecipients')) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1)
    const byId = new Map(records.map(record => [record.id, record]))
    const lost = [...ids].filter(id => isLost(byId.get(id), times.get(id) ?? 0))
    const unnamed = records.filter(record => !ids.has(record.id))
    const unnamedSent = unnamed.filter(record => (times.get(record.id) ?? 0) > 0)
    const others = answers.filter(answer => !(answer.status === 200 || answer.status === 202 || (answer.status === 503 && answer.retryAfter)))
    const byStatus = (list: Answer[]) => [...new Set(list.map(answer => answer.status))].map(status => `${status}: ${list.filter(answer => answer.status === status).length}`).join(', ')
    const summary = table(['measure', 'value'], [
      ['sends offered (half queued)', String(SENDS)],
      ['answers (retries included)', `${answers.length} (${byStatus(answers)})`],
      ['records created', String(ids.size)],
      ['accepted messages lost (must be 0)', String(lost.length)],
      ['duplicate upstream sends (must be 0)', String([...perRecipient.values()].filter(count => count > 1).length)],
      ['records no answer named (a write whose reply was lost), by status', `${unnamed.length}${unnamed.length ? ` (${[...new Set(unnamed.map(record => `${record.status} ${record.error_code ?? ''}`.trim()))].map(key => `${key}: ${unnamed.filter(record => `${record.status} ${record.error_code ?? ''}`.trim() === key).length}`).join(', ')})` : ''}`],
      ['of them sent upstream (the client was told 503; must be 0)', String(unnamedSent.length)],
      ['answers other than 200/202/503 with Retry-After (must be 0)', `${others.length}${others.length ? ` (${byStatus(others)})` : ''}`],
      ['records left queued/pending/sending (must be 0)', String(records.filter(record => !DONE.has(record.status)).length)],
      ['records failed, by reason', [...new Set(records.filter(record => record.status === 'failed').map(record => record.error_code))].map(code => `${code}: ${records.filter(record => record.error_code === code).length}`).join(', ') || '-'],
      ['load wall time s', (run.seconds).toFixed(1)],
      ['total s (settled included)', ((Date.now() - started) / 1000).toFixed(1)]
    ])
    const recovery = table(['cut', 'dependency', 'down ms', 'recovered after heal ms'], heals.map((heal, index) => [String(index + 1), heal.dependency, String(heal.cutMs), String(heal.recoveryMs)]))
    return `Chaos: ${SENDS} sends (${CONCURRENCY} in flight, 503s retried as their Retry-After asks) through one gateway on PostgreSQL + Redis, against the emulator, while fault proxies cut PostgreSQL and Redis in turn, ${CUTS} × each for ${CUT_MIN_MS}–${CUT_MAX_MS} ms, ${GAP_MS} ms apart. Lost: an id whose record is missing, still in flight, sent without the emulator having it, or failed with a reason the emulator contradicts. Recovered: from the heal until a request that needs the dependency (a read for PostgreSQL, a synchronous send for Redis) answers 200.\n\n${summary}\n\n${recovery}`
  } finally {
    await pool.close()
    await direct.end({ timeout: 1 })
    proxies.PostgreSQL.heal()
    proxies.Redis.heal()
    await gateway.stop()
    await emulator.stop()
    await proxies.PostgreSQL.close()
    await proxies.Redis.close()
    await database.drop()
    await redis.clear()
    await redis.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchChaos())
}
