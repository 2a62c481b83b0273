import { rowsOf } from '../db/client.js'
import { sql } from 'drizzle-orm'
import { signBody } from '../src/sandbox/emulator/index.js'
import { performance } from 'node:perf_hooks'
import { request } from 'undici'
import { buildApp } from '../src/app.js'
import { messages } from '../db/schema.js'
import { addEndpoint } from '../src/events/endpoints.js'
import { emitEvents, outboxCommitted } from '../src/events/outbox.js'
import { createTestDatabase } from '../tests/helpers/database.js'
import { testConfig } from '../tests/helpers/config.js'
import { startReceiver } from '../tests/events/receiver.js'
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
// alone. The outbox must keep up with the intake (events/s ≥ statuses/s).
const POSTS = Number(process.env.BENCH_EVENT_POSTS ?? 30)
const CONCURRENCY = 4

async function run (backend: string, databaseUrl: string | undefined) {
  const database = databaseUrl === undefined ? await createTestDatabase() : { url: databaseUrl, drop: async () => {} }
  const app = await buildApp({ config: testConfig({ DATABASE_URL: database.url, APP_SECRET: SECRET, TEMPLATE_SYNC_INTERVAL_MS: '0', WEBHOOKS_ALLOW_PRIVATE: 'true' }), logger: false })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const receiver = await startReceiver()
  const [quiet, subscribed] = [await app.workspaces.create('no endpoint', 'growth'), await app.workspaces.create('one endpoint', 'growth')]
  await addEndpoint(app, { workspaceId: subscribed.id, url: receiver.url })

  async function intake (workspaceId: string, prefix: string) {
    const wamids = Array.from({ length: POSTS * STATUSES_PER_POST }, (_, index) => `wamid.${prefix}${index}`)
    for (let start = 0; start < wamids.length; start += 500) {
      await app.database.db.insert(messages).values(wamids.slice(start, start + 500).map(wamid => ({
        id: `msg_${wamid}`, workspaceId, phoneNumberId: PHONE_NUMBER_ID, recipient: '15550001111', type: 'text', payload: {}, status: 'sent' as const, wamid, attempts: 1
      })))
    }
    const bodies = Array.from({ length: POSTS }, (_, post) => body(wamids.slice(post * STATUSES_PER_POST, (post + 1) * STATUSES_PER_POST), 'delivered', 1_800_000_000))
    const started = performance.now()
    await load(bodies.length, CONCURRENCY, async index => {
      const response = await request(`${url}/webhooks/whatsapp`, { method: 'POST', body: bodies[index], headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bodies[index]) } })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`)
    })
    // the intake acknowledges once a delivery is stored: count until the inbox has applied every status
    await waitFor(async () => rowsOf<{ n: number }>(await app.database.db.execute(sql`select count(*)::int as n from messages
      where workspace_id = ${workspaceId} and status = 'delivered'`))[0].n === wamids.length, { timeoutMs: 300_000, intervalMs: 20, what: 'every status applied' })
    return { statuses: wamids.length, statusesPerSecond: wamids.length / ((performance.now() - started) / 1000), started }
  }

  const baseline = await intake(quiet.id, 'q')
  const withEvents = await intake(subscribed.id, 's')
  await waitFor(async () => receiver.received.length >= withEvents.statuses, { timeoutMs: 300_000, what: 'every event delivered' })
  const endToEnd = withEvents.statuses / ((performance.now() - withEvents.started) / 1000)

  // the outbox alone: as many events committed at once, then drained
  const before = receiver.received.length
  const drainStarted = performance.now()
  await app.database.db.transaction(async tx => await emitEvents(tx, Array.from({ length: withEvents.statuses }, (_, index) => ({ workspaceId: subscribed.id, type: 'message.read' as const, data: { index } }))))
  outboxCommitted()
  await waitFor(async () => receiver.received.length >= before + withEvents.statuses, { timeoutMs: 300_000, what: 'outbox drained' })
  const drain = withEvents.statuses / ((performance.now() - drainStarted) / 1000)

  await app.close()
  await receiver.close()
  await database.drop()
  return [
    [`${backend}: intake, no endpoint (baseline)`, baseline.statusesPerSecond, '-'],
    [`${backend}: intake with one endpoint`, withEvents.statusesPerSecond, endToEnd],
    [`${backend}: outbox draining alone`, '-', drain]
  ]
}

export async function benchEvents (): Promise<string> {
  const rows = [...await run('PGlite (memory)', 'memory://')]
  const postgres = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  if (postgres) {
    process.env.TEST_DATABASE_URL = postgres
    rows.push(...await run('PostgreSQL', undefined))
  }
  return `Outgoing events: ${POSTS} status POSTs x ${STATUSES_PER_POST} statuses, ${CONCURRENCY} concurrent; each applied status is one event to a local receiver answering 200 at once; delivered/s counts from the first POST to the last event received (${machine()})\n\n` +
    table(['run', 'statuses applied/s', 'events delivered/s'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchEvents())
}
