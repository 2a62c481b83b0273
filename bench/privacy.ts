import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../db/client.js'
import { actors } from '../src/access/audit.js'
import { buildApp } from '../src/app.js'
import { connectWorkspace } from '../src/connections/connect.js'
import { fileStorage } from '../src/media/storage.js'
import { purgeContent, SWEEP_PAUSE } from '../src/privacy/purge.js'
import { defaultAccount, startEmulator } from '../src/sandbox/emulator/index.js'
import { testConfig } from '../tests/helpers/config.js'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { signedHeaders } from '../tests/helpers/webhook.js'
import { envelope, inboxDrained, messagesValue, status } from '../tests/webhooks/helpers.js'
import { load, machine, table } from './lib.js'

// Issue 37's figures, on PostgreSQL (BENCH_DATABASE_URL; a database is created and dropped):
// (1) erasing one person with BENCH_PRIVACY_PERSON records among BENCH_PRIVACY_RECORDS (targets
// at 10,000 among 1,000,000: ≤ 5 s); (2) a retention purge of those records while sends run:
// the send rate beside the same round without the purge (target ≥ 0.9×), and the longest
// transaction of the purge, which bounds how long it holds any row of `messages` (target ≤ 100 ms).
const RECORDS = Number(process.env.BENCH_PRIVACY_RECORDS ?? 1_000_000)
const PERSON = Number(process.env.BENCH_PRIVACY_PERSON ?? 10_000)
const SENDS = Number(process.env.BENCH_PRIVACY_SENDS ?? 3000)
const CONCURRENCY = 32
const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const PERSON_NUMBER = '17779990000'

async function seed (app: FastifyInstance, workspaceId: string): Promise<void> {
  // old records (40 days): the person's first, then everyone else's, in one statement each
  for (const [count, recipient] of [[PERSON, `'${PERSON_NUMBER}'`], [RECORDS - PERSON, `'1888' || lpad(n::text, 7, '0')`]] as const) {
    await app.database.db.execute(sql.raw(`insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, created_at)
      select 'msg_b' || ${recipient} || '_' || n, '${workspaceId}', '106540352242922', ${recipient}, 'text',
        jsonb_build_object('type', 'text', 'text', jsonb_build_object('body', 'hello number ' || n)), 'delivered', 'wamid.b' || ${recipient} || n,
        now() - interval '40 days' + n * interval '1 millisecond'
      from generate_series(1, ${count}) n`))
  }
  await app.database.db.execute(sql`analyze messages`)
}

let recipient = 0
async function sendRound (app: FastifyInstance, authorization: string): Promise<number> {
  const { seconds } = await load(SENDS, CONCURRENCY, async () => {
    const to = `1666${String(recipient++).padStart(7, '0')}`
    const response = await app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization, 'content-type': 'application/json' }, payload: JSON.stringify({ to, type: 'template', template: 'hello_world' }) })
    if (response.statusCode !== 200) throw new Error(`send answered ${response.statusCode}: ${response.body}`)
  })
  return SENDS / seconds
}

let statused = 0
/** SENDS signed status webhooks (one `read` each, for a seeded record of someone else's), 32 in flight, until the inbox has applied them all. */
async function intakeRound (app: FastifyInstance, appSecret: string): Promise<number> {
  const started = performance.now()
  await load(SENDS, CONCURRENCY, async () => {
    const n = 1 + (statused++ % (RECORDS - PERSON))
    const to = `1888${String(n).padStart(7, '0')}`
    const raw = JSON.stringify(envelope('messages', messagesValue({ statuses: [status(`wamid.b${to}${n}`, 'read', String(Math.floor(Date.now() / 1000)), { recipient_id: to })] })))
    const response = await app.inject({ method: 'POST', url: '/webhooks/whatsapp', headers: signedHeaders(raw, appSecret), payload: raw })
    if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}: ${response.body}`)
  })
  await inboxDrained(app)
  return SENDS / ((performance.now() - started) / 1000)
}

/** The database with each transaction timed: the longest is the longest any row stayed locked by the purge. */
function timedTransactions (db: Database): { db: Database, longest: () => number, count: () => number } {
  let longest = 0
  let count = 0
  const timed = new Proxy(db, {
    get (target, property, receiver) {
      if (property !== 'transaction') return Reflect.get(target, property, receiver)
      return async (work: (tx: unknown) => Promise<unknown>) => {
        const started = performance.now()
        try { return await target.transaction(work as never) } finally { longest = Math.max(longest, performance.now() - started); count++ }
      }
    }
  })
  return { db: timed, longest: () => longest, count: () => count }
}

export async function benchPrivacy (): Promise<string> {
  const emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, throughputMps: 1_000_000 })
  emulator.setStatusOptions('global', { statuses: [] })
  const database = await createPostgresDatabase(SERVER)
  const app = await buildApp({
    config: testConfig({ DATABASE_URL: database.url, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, RATE_LIMIT_MAX: '10000000', THROUGHPUT_MPS: '100000', PAIR_RATE_BURST: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0', NUMBER_REFRESH_INTERVAL_MS: '0', MESSAGING_LIMIT_CHECK: 'off' }),
    logger: false
  })
  try {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const account = defaultAccount()
    const workspace = await app.workspaces.create('bench', 'growth')
    await connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
    const { secret } = await app.keys.create(workspace.id, 'bench')
    const authorization = `Bearer ${secret}`
    const seeding = performance.now()
    await seed(app, workspace.id)
    const seeded = (performance.now() - seeding) / 1000

    const erasing = performance.now()
    const asked = await app.privacy.requestErasure({ workspaceId: workspace.id, recipient: PERSON_NUMBER, who: actors.cli() })
    let erasure = asked
    while (erasure.status !== 'completed') {
      await new Promise(resolve => setTimeout(resolve, 50))
      erasure = (await app.erasures.get(asked.id))!
    }
    const erased = (performance.now() - erasing) / 1000

    await sendRound(app, authorization) // warm-up
    const alone = await sendRound(app, authorization)
    await intakeRound(app, emulator.appSecret) // warm-up
    const intakeAlone = await intakeRound(app, emulator.appSecret)
    const timed = timedTransactions(app.database.db)
    const sweeping = performance.now()
    const purge = purgeContent({ db: timed.db, storage: fileStorage('/nonexistent') }, { workspaceId: workspace.id, before: new Date(Date.now() - 30 * 86_400_000) }, { pause: SWEEP_PAUSE })
    const beside = await sendRound(app, authorization)
    const intakeBeside = await intakeRound(app, emulator.appSecret)
    const sendsEnded = (performance.now() - sweeping) / 1000
    const purged = await purge
    const swept = (performance.now() - sweeping) / 1000

    return [
      `${machine()}; PostgreSQL; ${RECORDS.toLocaleString('en')} records seeded in ${seeded.toFixed(1)} s; ${SENDS} template sends a round, ${CONCURRENCY} at a time`,
      '',
      table(['measure', 'value', 'target'], [
        [`erasure of one person with ${PERSON.toLocaleString('en')} records among ${RECORDS.toLocaleString('en')}`, `${erased.toFixed(2)} s (${erasure.counts?.messages} records)`, '≤ 5 s at 10,000 among 1,000,000'],
        ['sends/s alone', alone.toFixed(0), ''],
        ['sends/s beside the retention purge', `${beside.toFixed(0)} (${(beside / alone).toFixed(2)}×)`, '≥ 0.9×'],
        ['status webhooks applied/s alone', intakeAlone.toFixed(0), ''],
        ['status webhooks applied/s beside the retention purge', `${intakeBeside.toFixed(0)} (${(intakeBeside / intakeAlone).toFixed(2)}×)`, '≥ 0.9×'],
        ['retention purge', `${purged.messages.toLocaleString('en')} records in ${swept.toFixed(1)} s (${timed.count()} transactions; the sends and webhooks ran for the first ${sendsEnded.toFixed(1)} s)`, ''],
        ['longest purge transaction (bounds any row lock on messages)', `${timed.longest().toFixed(1)} ms`, '≤ 100 ms']
      ])
    ].join('\n')
  } finally {
    await app.close()
    await emulator.close()
    await database.drop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchPrivacy())
