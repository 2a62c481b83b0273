import { createHmac } from 'node:crypto'
import { request } from 'undici'
import Fastify from 'fastify'
import { buildApp } from '../src/app.js'
import { messages } from '../db/schema.js'
import { createTestDatabase } from '../tests/helpers/database.js'
import { testConfig } from '../tests/helpers/config.js'
import { load, machine, percentile, table } from './lib.js'

// Webhook ingestion: POSTs carrying 100 statuses each, signed, against the real route and database,
// beside a bare baseline that only checks the signature and answers (the ceiling of the transport).
export const STATUSES_PER_POST = 100
const POSTS = Number(process.env.BENCH_WEBHOOK_POSTS ?? 60)
const CONCURRENCY = 4
export const SECRET = 'bench-app-secret'
const PHONE_NUMBER_ID = '106540352242922'

export function body (wamids: string[], status: string, base: number): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'waba', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: PHONE_NUMBER_ID }, statuses: wamids.map((id, index) => ({ id, status, timestamp: String(base + index), recipient_id: '15550001111' })) } }] }]
  })
}

export const sign = (raw: string) => 'sha256=' + createHmac('sha256', SECRET).update(raw).digest('hex')

async function measure (url: string, bodies: string[]) {
  const { latencies, seconds } = await load(bodies.length, CONCURRENCY, async index => {
    const raw = bodies[index]
    const response = await request(`${url}/webhooks/whatsapp`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw) } })
    await response.body.dump()
    if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`)
  })
  return { statusesPerSecond: (bodies.length * STATUSES_PER_POST) / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99) }
}

async function gatewayRun (backend: string, databaseUrl: string | undefined) {
  const database = databaseUrl === undefined ? await createTestDatabase() : { url: databaseUrl, drop: async () => {} }
  const app = await buildApp({ config: testConfig({ DATABASE_URL: database.url, APP_SECRET: SECRET, TEMPLATE_SYNC_INTERVAL_MS: '0' }), logger: false })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const workspace = await app.workspaces.create('bench', 'growth')
  const wamids = Array.from({ length: POSTS * STATUSES_PER_POST }, (_, index) => `wamid.bench${index}`)
  for (let start = 0; start < wamids.length; start += 500) {
    await app.database.db.insert(messages).values(wamids.slice(start, start + 500).map(wamid => ({
      id: `msg_${wamid}`, workspaceId: workspace.id, phoneNumberId: PHONE_NUMBER_ID, recipient: '15550001111', type: 'text', payload: {}, status: 'sent' as const, wamid, attempts: 1
    })))
  }
  const bodies = Array.from({ length: POSTS }, (_, post) => body(wamids.slice(post * STATUSES_PER_POST, (post + 1) * STATUSES_PER_POST), 'delivered', 1_800_000_000))
  const result = await measure(url, bodies)
  await app.close()
  await database.drop()
  return [`gateway on ${backend}`, result.statusesPerSecond, result.p50, result.p95, result.p99]
}

async function baselineRun () {
  const bare = Fastify()
  bare.removeAllContentTypeParsers()
  bare.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, raw, done) => done(null, raw))
  bare.post('/webhooks/whatsapp', async request => {
    const expected = sign((request.body as Buffer).toString())
    if (expected !== request.headers['x-hub-signature-256']) throw new Error('bad signature')
    JSON.parse((request.body as Buffer).toString())
    return { ok: true }
  })
  const url = await bare.listen({ port: 0, host: '127.0.0.1' })
  const bodies = Array.from({ length: POSTS }, (_, post) => body(Array.from({ length: STATUSES_PER_POST }, (_, index) => `wamid.b${post}-${index}`), 'delivered', 1_800_000_000))
  const result = await measure(url, bodies)
  await bare.close()
  return ['baseline: verify + parse, no database', result.statusesPerSecond, result.p50, result.p95, result.p99]
}

export async function benchWebhooks (): Promise<string> {
  const rows = [await baselineRun(), await gatewayRun('PGlite (memory)', 'memory://')]
  const postgres = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  if (postgres) {
    process.env.TEST_DATABASE_URL = postgres
    rows.push(await gatewayRun('PostgreSQL', undefined))
  }
  return `Webhook ingestion: ${POSTS} POSTs x ${STATUSES_PER_POST} statuses, ${CONCURRENCY} concurrent (${machine()})\n\n` +
    table(['run', 'statuses/s', 'p50 ms/POST', 'p95 ms', 'p99 ms'], rows)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchWebhooks())
}
