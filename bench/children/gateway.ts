import { eq, sql } from 'drizzle-orm'
import { messages } from '../../db/schema.js'
import { buildApp } from '../../src/app.js'
import type { PendingMessage } from '../../src/store/messages.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { testConfig } from '../../tests/helpers/config.js'
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { rssSampler, serve } from '../child.js'

// The gateway as `npm start` builds it, with one connected workspace: on the embedded in-memory
// database, on BENCH_GATEWAY_DATABASE_URL (a fresh PostgreSQL database the parent made), or with
// BENCH_GATEWAY_DATA_DIR on the embedded database on disk there (the default deployment).
const rss = rssSampler()
const app = await buildApp({ config: testConfig({ ...process.env as Record<string, string>, DATABASE_URL: process.env.BENCH_GATEWAY_DATA_DIR ? undefined : process.env.BENCH_GATEWAY_DATABASE_URL ?? 'memory://', DATA_DIR: process.env.BENCH_GATEWAY_DATA_DIR ?? './data', TEMPLATE_SYNC_INTERVAL_MS: '0' }), logger: false })
const url = await app.listen({ port: 0, host: '127.0.0.1' })

// BENCH_GATEWAY_ABLATION=no-writes (bench/send.ts, BENCH_SEND_ABLATION=1): a send's two durable
// writes, its record and its outcome, become in-memory stand-ins, to tell their cost from the rest of
// the send. A measurement, never a deployment: no record is written.
if (process.env.BENCH_GATEWAY_ABLATION === 'no-writes') {
  app.messages.create = async (message: PendingMessage) => ({ record: {
    ...message, apiKeyId: message.apiKeyId ?? null, dispatcherId: message.dispatcherId ?? null, clientReference: message.clientReference ?? null, campaignId: null,
    status: 'pending', wamid: null, errorCode: null, errorText: null, attempts: 0, pricingCategory: null, idempotencyKey: null,
    sentAt: null, failedAt: null, queuedAt: null, sendingAt: null, createdAt: new Date(), updatedAt: new Date(), heldReason: null, heldSince: null, heldMs: 0, pricing: null, billable: null, contentPurgedAt: null, erased: false
  } })
  app.messages.markSent = async () => {}
}

/** Connects the emulator's first number to a new workspace; the authorization of its API key. */
async function connectWorkspace (): Promise<string> {
  const account = defaultAccount()
  const workspace = await app.workspaces.create('bench', 'scale')
  const [number] = account.phoneNumbers
  await app.connections.replace(workspace.id, account.wabaId, app.cipher.encrypt(account.accessToken), [
    { id: number.id, display_phone_number: number.displayPhoneNumber, throughput: { level: process.env.BENCH_THROUGHPUT_LEVEL ?? 'STANDARD' } }
  ])
  // BENCH_GATEWAY_KEY=scoped (bench/send.ts, BENCH_SEND_SCOPED_KEY=1): a key limited to sending, from this number only
  const grant = process.env.BENCH_GATEWAY_KEY === 'scoped' ? { scopes: ['messages:send' as const], phoneNumberIds: [number.id] } : {}
  return `Bearer ${(await app.keys.create(workspace.id, 'bench', grant)).secret}`
}

// A second process on the same database (and ENCRYPTION_KEY) is given the first one's key and connects nothing.
const authorization = process.env.BENCH_GATEWAY_AUTHORIZATION ?? await connectWorkspace()

serve({
  rss: () => ({ now: rss.now(), peak: rss.peak() }),
  /** the V8 heap in use after a full collection: live data, without the garbage RSS may still hold */
  liveHeap: () => {
    setFlagsFromString('--expose-gc')
    ;(runInNewContext('gc') as () => void)()
    return process.memoryUsage().heapUsed
  },
  memory: () => process.memoryUsage(),
  /** process.memoryUsage() after a full collection (bench/campaign-upload-memory.ts) */
  memoryAfterGc: () => {
    setFlagsFromString('--expose-gc')
    ;(runInNewContext('gc') as () => void)()
    return process.memoryUsage()
  },
  /** a V8 heap snapshot written to `path`, to see what is held */
  heapSnapshot: (path: string) => writeHeapSnapshot(path),
  resetPeak: () => rss.resetPeak(),
  /** records still waiting to be sent */
  pending: async () => await app.database.db.$count(messages, eq(messages.status, 'pending')),
  /** queued sends not yet taken by the drain */
  queued: async () => await app.database.db.$count(messages, eq(messages.status, 'queued')),
  /** while held, the number's queue fills without draining (as if another process held its drain) */
  holdDrain: async (held: boolean) => {
    const number = defaultAccount().phoneNumbers[0].id
    await app.database.db.execute(held
      ? sql`insert into job_groups (name, group_key, holder, lease_expires_at) values ('number-drains', ${number}, 'bench', now() + interval '1 hour') on conflict (name, group_key) do update set holder = 'bench', lease_expires_at = now() + interval '1 hour'`
      : sql`delete from job_groups where holder = 'bench'`)
  }
}, { url, authorization })
