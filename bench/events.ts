import { signBody } from '../src/sandbox/emulator/index.js'
import { performance } from 'node:perf_hooks'
import { request } from 'undici'
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

interface Gateway { url: string }

async function run (backend: string, databaseUrl: string) {
  const receiver = await startChild<{ url: string }>('events-receiver')
  const gateway = await startChild<Gateway>('events-gateway', { DATABASE_URL: databaseUrl, APP_SECRET: SECRET, BENCH_RECEIVER_URL: receiver.ready.url, BENCH_PHONE_NUMBER_ID: PHONE_NUMBER_ID })
  const { url } = gateway.ready

  async function intake (workspace: 'quiet' | 'subscribed', prefix: string) {
    const wamids = Array.from({ length: POSTS * STATUSES_PER_POST }, (_, index) => `wamid.${prefix}${index}`)
    await gateway.call('seed', workspace, wamids)
    const bodies = Array.from({ length: POSTS }, (_, post) => body(wamids.slice(post * STATUSES_PER_POST, (post + 1) * STATUSES_PER_POST), 'delivered', 1_800_000_000))
    const started = performance.now()
    await load(bodies.length, CONCURRENCY, async index => {
      const response = await request(`${url}/webhooks/whatsapp`, { method: 'POST', body: bodies[index], headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bodies[index]) } })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`)
    })
    // the intake acknowledges once a delivery is stored: count until the inbox has applied every status
    await waitFor(async () => await gateway.call<number>('delivered', workspace) === wamids.length, { timeoutMs: 300_000, intervalMs: 20, what: 'every status applied' })
    return { statuses: wamids.length, statusesPerSecond: wamids.length / ((performance.now() - started) / 1000), started }
  }

  try {
    const baseline = await intake('quiet', 'q')
    const withEvents = await intake('subscribed', 's')
    await waitFor(async () => await receiver.call<number>('received') >= withEvents.statuses, { timeoutMs: 300_000, intervalMs: 20, what: 'every event delivered' })
    const endToEnd = withEvents.statuses / ((performance.now() - withEvents.started) / 1000)

    // the outbox alone: as many events committed at once, then drained
    const before = await receiver.call<number>('received')
    const drainStarted = performance.now()
    await gateway.call('emit', withEvents.statuses)
    await waitFor(async () => await receiver.call<number>('received') >= before + withEvents.statuses, { timeoutMs: 300_000, intervalMs: 20, what: 'outbox drained' })
    const drain = withEvents.statuses / ((performance.now() - drainStarted) / 1000)
    if (process.env.BENCH_EVENTS_DEBUG) console.error(await gateway.call('attempts'))
    const [received, distinct] = [await receiver.call<number>('received'), await receiver.call<number>('distinct')]
    return [
      [`${backend}: intake, no endpoint (baseline)`, baseline.statusesPerSecond, '-', '-'],
      [`${backend}: intake with one endpoint`, withEvents.statusesPerSecond, endToEnd, '-'],
      [`${backend}: outbox draining alone`, '-', drain, `${received - distinct}`]
    ]
  } finally {
    await gateway.stop()
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
  return `Outgoing events: ${POSTS} status POSTs x ${STATUSES_PER_POST} statuses, ${CONCURRENCY} concurrent; each applied status is one event to a local receiver (a process of its own) answering 200 at once; delivered/s counts from the first POST to the last event received (${machine()})\n\n` +
    table(['run', 'statuses applied/s', 'events delivered/s', 'delivered twice'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchEvents())
}
