import { signBody } from '../src/sandbox/emulator/index.js'
import { performance } from 'node:perf_hooks'
import { request } from 'undici'
import { OUTBOX_CONCURRENCY } from '../src/events/outbox.js'
import { startChild } from './child.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { waitFor } from '../tests/helpers/wait.js'
import { load, machine, table } from './lib.js'

// Deliveries of 100 statuses each, as the intake bench of the first round posted them.
const STATUSES_PER_POST = 100
const SECRET = 'bench-app-secret'
const PHONE_NUMBER_ID = '106540352242922'
const sign = (raw: string) => signBody(raw, SECRET)

function body (wamids: string[], status: string, base: number): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'waba', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: PHONE_NUMBER_ID }, statuses: wamids.map((id, index) => ({ id, status, timestamp: String(base + index), recipient_id: '15550001111' })) } }] }]
  })
}

// Outgoing events beside the intake that causes them: statuses/s the webhook intake applies (each
// applied status emits one event), events/s delivered to a local receiver, and the outbox draining
// alone. The outbox must keep up with the intake (events/s ≥ statuses/s). The gateway and the
// receiver run in processes of their own; this one posts and waits.
const POSTS = Number(process.env.BENCH_EVENT_POSTS ?? 100)
const CONCURRENCY = 4
// Meta's own pattern (issue 12): one status per POST, 32 in flight
const SINGLE_POSTS = Number(process.env.BENCH_EVENT_SINGLE_POSTS ?? 6000)
const SINGLE_CONCURRENCY = 32

interface Gateway { url: string }

async function run (backend: string, databaseUrl: string) {
  const receiver = await startChild<{ url: string }>('events-receiver')
  const gateway = await startChild<Gateway>('events-gateway', { DATABASE_URL: databaseUrl, APP_SECRET: SECRET, BENCH_RECEIVER_URL: receiver.ready.url, BENCH_PHONE_NUMBER_ID: PHONE_NUMBER_ID })
  const { url } = gateway.ready
  const baseline = await startChild<Record<string, never>>('events-baseline')

  async function intake (workspace: 'quiet' | 'subscribed', prefix: string, perPost = STATUSES_PER_POST, posts = POSTS, concurrency = CONCURRENCY) {
    const wamids = Array.from({ length: posts * perPost }, (_, index) => `wamid.${prefix}${index}`)
    await gateway.call('seed', workspace, wamids)
    const bodies = Array.from({ length: posts }, (_, post) => body(wamids.slice(post * perPost, (post + 1) * perPost), 'delivered', 1_800_000_000))
    const started = performance.now()
    await load(bodies.length, concurrency, async index => {
      const response = await request(`${url}/webhooks/whatsapp`, { method: 'POST', body: bodies[index], headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bodies[index]) } })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`)
    })
    // the intake acknowledges once a delivery is stored: count until the inbox has applied every status
    await waitFor(async () => await gateway.call<number>('delivered', workspace, `wamid.${prefix}`) === wamids.length, { timeoutMs: 300_000, intervalMs: 20, what: 'every status applied' })
    return { statuses: wamids.length, statusesPerSecond: wamids.length / ((performance.now() - started) / 1000), started }
  }

  try {
    const bare = await baseline.call<number>('send', receiver.ready.url, 20_000, OUTBOX_CONCURRENCY)
    const rows: Array<Array<string | number>> = [[`${backend}: bare sender (sign + POST, no database)`, '-', bare, '-']]
    let delivered = await receiver.call<number>('received')
    for (const [label, perPost, posts, concurrency] of [
      [`${STATUSES_PER_POST} statuses per POST, ${CONCURRENCY} in flight`, STATUSES_PER_POST, POSTS, CONCURRENCY],
      [`1 status per POST, ${SINGLE_CONCURRENCY} in flight`, 1, SINGLE_POSTS, SINGLE_CONCURRENCY]
    ] as const) {
      const quiet = await intake('quiet', `q${perPost}-`, perPost, posts, concurrency)
      const withEvents = await intake('subscribed', `s${perPost}-`, perPost, posts, concurrency)
      delivered += withEvents.statuses
      await waitFor(async () => await receiver.call<number>('received') >= delivered, { timeoutMs: 300_000, intervalMs: 20, what: 'every event delivered' })
      const endToEnd = withEvents.statuses / ((performance.now() - withEvents.started) / 1000)
      rows.push([`${backend}: intake, ${label}, no endpoint`, quiet.statusesPerSecond, '-', '-'],
        [`${backend}: intake, ${label}, one endpoint`, withEvents.statusesPerSecond, endToEnd, '-'])
    }

    // the outbox alone: as many events committed at once, then drained
    const count = POSTS * STATUSES_PER_POST
    const drainStarted = performance.now()
    await gateway.call('emit', count)
    await waitFor(async () => await receiver.call<number>('received') >= delivered + count, { timeoutMs: 300_000, intervalMs: 20, what: 'outbox drained' })
    const drain = count / ((performance.now() - drainStarted) / 1000)
    if (process.env.BENCH_EVENTS_DEBUG) console.error(await gateway.call('attempts'))
    const [received, distinct] = [await receiver.call<number>('received'), await receiver.call<number>('distinct')]
    rows.push([`${backend}: outbox draining alone`, '-', drain, `${received - distinct}`])
    return rows
  } finally {
    await gateway.stop()
    await baseline.stop()
    await receiver.stop()
  }
}

export async function benchEvents (): Promise<string> {
  const rows = []
  if (process.env.BENCH_EVENTS_ONLY !== 'postgres') rows.push(...await run('PGlite (memory)', 'memory://'))
  const postgres = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  if (postgres && process.env.BENCH_EVENTS_ONLY !== 'pglite') {
    const database = await createPostgresDatabase(postgres)
    try {
      rows.push(...await run('PostgreSQL', database.url))
    } finally {
      await database.drop()
    }
  }
  return `Outgoing events: each applied status is one event to a local receiver (a process of its own) answering 200 at once; statuses posted ${STATUSES_PER_POST} to a POST (${POSTS} POSTs, ${CONCURRENCY} in flight) and one to a POST as Meta sends them (${SINGLE_POSTS} POSTs, ${SINGLE_CONCURRENCY} in flight); applied/s counts until the inbox has applied every status, delivered/s from the first POST to the last event received; the bare sender posts 20,000 signed events with as many in flight as the outbox (${machine()})\n\n` +
    table(['run', 'statuses applied/s', 'events delivered/s', 'delivered twice'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchEvents())
}
