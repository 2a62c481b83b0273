import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'
import { signBody } from '../src/sandbox/emulator/index.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { waitFor } from '../tests/helpers/wait.js'
import { startChild, type Child } from './child.js'
import { load, machine, percentile, table } from './lib.js'

// The relay on PostgreSQL (issue 38): Meta's status webhooks (one status per POST, as Meta sends
// them) into a gateway without relays and into the same gateway with two relay targets (a process of
// their own), each run against a fresh database; applied/s counts until the inbox is drained. Then
// 1,000 deliveries/s paced for a while: each target's delay from Outbound's 200 to its arrival.
const POSTS = Number(process.env.BENCH_RELAY_POSTS ?? 10_000)
const CONCURRENCY = 32
const PACED_RATE = 1000
const PACED_SECONDS = Number(process.env.BENCH_RELAY_SECONDS ?? 10)
const SECRET = 'bench-app-secret'

function statusBody (phoneNumberId: string, index: number): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: {
      messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
      statuses: [{ id: `wamid.bench-${index}`, status: 'delivered', timestamp: String(1_795_000_000 + index), recipient_id: '15550001111' }]
    } }] }]
  })
}

interface Ready { url: string, phoneNumberId: string }
type Receiver = Child<{ urls: string[] }>

async function gateway (postgres: string, relayUrls: string[]) {
  const database = await createPostgresDatabase(postgres)
  const child = await startChild<Ready>('webhook-gateway', {
    DATABASE_URL: database.url, APP_SECRET: SECRET, WEBHOOKS_ALLOW_PRIVATE: 'true', BENCH_WAMIDS: String(POSTS + PACED_RATE * PACED_SECONDS),
    ...(relayUrls.length > 0 && { BENCH_RELAY_URLS: relayUrls.join(',') })
  })
  const pool = new Pool(child.ready.url, { connections: 64 })
  const post = async (index: number): Promise<void> => {
    const raw = statusBody(child.ready.phoneNumberId, index)
    const response = await pool.request({ method: 'POST', path: '/webhooks/whatsapp', body: raw, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(raw, SECRET) } })
    await response.body.dump()
    if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`)
  }
  const drained = async () => { while (await child.call<number>('backlog') > 0) await new Promise(resolve => setTimeout(resolve, 20)) }
  return {
    post,
    drained,
    async stop () { await pool.close(); await child.stop(); await database.drop() }
  }
}

/** POSTS statuses at 32 in flight: applied/s until the inbox is drained, and (with targets) until both received every one. */
async function intake (postgres: string, receiver?: Receiver): Promise<{ applied: number, relayed?: number }> {
  const before = receiver ? await receiver.call<number[]>('received') : []
  const gw = await gateway(postgres, receiver?.ready.urls ?? [])
  try {
    const started = performance.now()
    await load(POSTS, CONCURRENCY, gw.post)
    await gw.drained()
    const applied = POSTS / ((performance.now() - started) / 1000)
    if (!receiver) return { applied }
    await waitFor(async () => (await receiver.call<number[]>('received')).every((count, i) => count - before[i] >= POSTS), { timeoutMs: 300_000, intervalMs: 20, what: 'every delivery relayed' })
    return { applied, relayed: POSTS / ((performance.now() - started) / 1000) }
  } finally {
    await gw.stop()
  }
}

/** PACED_RATE deliveries a second for PACED_SECONDS: each target's delay from the 200 to its arrival. */
async function paced (postgres: string, receiver: Receiver) {
  const gw = await gateway(postgres, receiver.ready.urls)
  try {
    const total = PACED_RATE * PACED_SECONDS
    const acked = new Map<number, number>()
    const started = performance.now()
    const posts: Promise<void>[] = []
    for (let index = 0; index < total; index++) {
      const due = started + index * 1000 / PACED_RATE
      const wait = due - performance.now()
      if (wait > 1) await new Promise(resolve => setTimeout(resolve, wait))
      const i = POSTS + index
      posts.push(gw.post(i).then(() => { acked.set(i, Date.now()) }))
    }
    await Promise.all(posts)
    const offered = total / ((performance.now() - started) / 1000)
    await waitFor(async () => (await receiver.call<Array<Array<[number, number]>>>('arrivals', POSTS, POSTS + total)).every(target => target.length === total), { timeoutMs: 300_000, intervalMs: 50, what: 'every paced delivery relayed' })
    const arrivals = await receiver.call<Array<Array<[number, number]>>>('arrivals', POSTS, POSTS + total)
    return { offered, delays: arrivals.map(target => target.map(([index, at]) => at - acked.get(index)!)) }
  } finally {
    await gw.stop()
  }
}

export async function benchRelay (): Promise<string> {
  const postgres = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  if (!postgres) return 'skipped: needs BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL)'
  const receiver = await startChild<{ urls: string[] }>('relay-receiver')
  try {
    const without = await intake(postgres)
    const withRelays = await intake(postgres, receiver)
    const { offered, delays } = await paced(postgres, receiver)
    const [received, distinct] = [await receiver.call<number[]>('received'), await receiver.call<number[]>('distinct')]
    const rows = [
      ['PostgreSQL: intake, no relay', without.applied, '-', '-', '-', '-'],
      ['PostgreSQL: intake, two relay targets', withRelays.applied, `${(withRelays.applied / without.applied).toFixed(2)}×`, withRelays.relayed!, '-', '-'],
      ...delays.map((target, i) => [`PostgreSQL: ${PACED_RATE}/s paced (${offered.toFixed(0)}/s offered) for ${PACED_SECONDS} s, target ${i + 1}`, '-', '-', '-', percentile(target, 50), percentile(target, 99)])
    ]
    return `The relay: one status per POST (${POSTS} POSTs, ${CONCURRENCY} in flight) into a gateway without relays and one relaying each delivery to two targets (a process of their own answering 200 at once); applied/s until the inbox is drained, relayed/s until both targets received every delivery; then ${PACED_RATE} deliveries/s paced for ${PACED_SECONDS} s, each target's delay from Outbound's 200 to the delivery's arrival. Delivered twice: ${received.map((count, i) => count - distinct[i]).join(', ')} (${machine()})\n\n` +
      table(['run', 'applied/s', 'vs no relay', 'relayed/s (both targets)', 'delay p50 ms', 'delay p99 ms'], rows)
  } finally {
    await receiver.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchRelay())
}
