import { Pool } from 'undici'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { createLocalPacer } from '../src/pacer/local-pacer.js'
import { defaultAccount } from '../src/sandbox/emulator/index.js'
import { startChild } from './child.js'
import { busiestWindow, table } from './lib.js'

// Pacing accuracy: the emulator enforces the number's limit (a sliding second); sends are offered
// faster than that for a while, and the table shows the rate the upstream accepted, the busiest
// second it saw and its refusals (130429 throughput, 131056 pair), which must be 0.
const LIMITS = process.env.BENCH_PACING_LIMITS ? process.env.BENCH_PACING_LIMITS.split(',').map(Number) : [80, 1000]
const SECONDS = Number(process.env.BENCH_PACING_SECONDS ?? 8)
const NUMBER = defaultAccount().phoneNumbers[0].id

interface Accepted { errors: Record<string, number>, accepted: number[] }

function summarize (name: string, limit: number, stats: Accepted): (string | number)[] {
  const times = [...stats.accepted].sort((a, b) => a - b)
  // the first slice may go at once; the rate is measured over the spacing after it
  const span = (times.at(-1)! - times[0]) / 1000
  const rate = (times.length - Math.max(1, Math.floor(limit / 10))) / span
  return [name, `${limit}/s`, String(times.length), rate, `${(100 * rate / limit).toFixed(1)}%`, String(busiestWindow(times)), String(stats.errors[130429] ?? 0), String(stats.errors[131056] ?? 0)]
}

/** Keeps `concurrency` sends in flight for `seconds`, each to a recipient of its own. */
async function offer (seconds: number, concurrency: number, send: (index: number) => Promise<void>): Promise<void> {
  let next = 0
  let failures = 0
  const until = Date.now() + seconds * 1000
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) await send(next++).catch(() => { failures++ })
  }))
  if (failures > 0) console.error(`pacing bench: ${failures} sends failed on the way`)
}

// Enough waiting sends to keep the pacer busy, not so many that the gateway's accept queue overflows.
const concurrencyFor = (limit: number) => Math.min(2 * limit, 400)

async function throughGateway (limit: number, emulatorUrl: string, databaseUrl?: string): Promise<void> {
  const gateway = await startChild<{ url: string, authorization: string }>('gateway', {
    GRAPH_API_URL: emulatorUrl, THROUGHPUT_MPS: String(limit), PAIR_RATE_BURST: '100000', RATE_LIMIT_MAX: '100000000', DISPATCH_DEADLINE_MS: '120000',
    ...(databaseUrl && { BENCH_GATEWAY_DATABASE_URL: databaseUrl })
  })
  const pool = new Pool(gateway.ready.url, { connections: concurrencyFor(limit) })
  try {
    await offer(SECONDS, concurrencyFor(limit), async index => {
      const response = await pool.request({ method: 'POST', path: '/api/messages.php', headers: { authorization: gateway.ready.authorization, 'content-type': 'application/json' }, body: JSON.stringify({ to: `1444${String(index).padStart(7, '0')}`, body: 'Hello' }) })
      await response.body.dump()
    })
  } finally {
    await pool.close()
    await gateway.stop()
  }
}

/** The pacer on its own in this process, sending through undici: what it does when the sender has CPU to spare. */
async function pacerAlone (limit: number, emulatorUrl: string): Promise<void> {
  const pacer = createLocalPacer({ queueLimit: 100_000, pairRate: { burst: 100_000, intervalMs: 6000 } })
  const url = new URL(emulatorUrl)
  const pool = new Pool(url.origin, { connections: 256 })
  const { accessToken } = defaultAccount()
  try {
    await offer(SECONDS, 2 * limit, async index => {
      const to = `1444${String(index).padStart(7, '0')}`
      const permit = await pacer.acquire({ numberId: NUMBER, recipient: to, mps: limit }, { deadline: Date.now() + 120_000 })
      try {
        const response = await pool.request({ method: 'POST', path: `${url.pathname}/${NUMBER}/messages`, headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ messaging_product: 'whatsapp', to, type: 'text', text: { body: 'Hello' } }) })
        await response.body.dump()
      } finally {
        permit.done()
      }
    })
  } finally {
    pacer.close()
    await pool.close()
  }
}

/** The gateway on a fresh PostgreSQL database (BENCH_DATABASE_URL), as an operator runs one process. */
async function throughGatewayOnPostgres (limit: number, emulatorUrl: string): Promise<void> {
  const database = await createPostgresDatabase(process.env.BENCH_DATABASE_URL!)
  try {
    await throughGateway(limit, emulatorUrl, database.url)
  } finally {
    await database.drop()
  }
}

type Run = (limit: number, emulatorUrl: string) => Promise<void>

export async function benchPacing (): Promise<string> {
  const rows: (string | number)[][] = []
  const senders: [string, Run][] = [['gateway (PGlite memory://)', throughGateway], ['pacer alone + undici', pacerAlone]]
  if (process.env.BENCH_DATABASE_URL) senders.splice(1, 0, ['gateway (PostgreSQL)', throughGatewayOnPostgres])
  for (const limit of LIMITS) {
    for (const [name, run] of senders) {
      const emulator = await startChild<{ url: string }>('emulator', { EMULATOR_THROUGHPUT_MPS: String(limit) })
      try {
        await run(limit, emulator.ready.url)
        rows.push(summarize(name, limit, await emulator.call<Accepted>('stats')))
      } finally {
        await emulator.stop()
      }
    }
  }
  return `Pacing: ${SECONDS} s of sends offered faster than the limit (${concurrencyFor(80)} and ${concurrencyFor(1000)} in flight; distinct recipients), the emulator enforcing the limit\n\n` +
    table(['sender', 'limit', 'accepted', 'accepted/s', 'of limit', 'busiest 1 s window', '130429', '131056'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchPacing())
}
