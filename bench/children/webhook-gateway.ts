import { sql } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import { messages } from '../../db/schema.js'
import { buildApp } from '../../src/app.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { jobSql } from '../../src/work/jobs.js'
import { INBOX_QUEUE } from '../../src/webhooks/inbox.js'
import { addRelay } from '../../src/relay/targets.js'
import { testConfig } from '../../tests/helpers/config.js'
import { serve } from '../child.js'

// The gateway as `npm start` builds it, on the embedded database in DATA_DIR (on disk) or on
// DATABASE_URL, with one connected workspace and BENCH_WAMIDS sent records whose wamids the
// parent's statuses name (wamid.bench-<index>).
const app = await buildApp({ config: testConfig({ ...process.env as Record<string, string>, TEMPLATE_SYNC_INTERVAL_MS: '0' }), logger: false })
const url = await app.listen({ port: 0, host: '127.0.0.1' })

const account = defaultAccount()
const [number] = account.phoneNumbers
const workspace = await app.workspaces.create('bench', 'scale')
await app.connections.replace(workspace.id, account.wabaId, app.cipher.encrypt(account.accessToken), [{ id: number.id, display_phone_number: number.displayPhoneNumber, throughput: { level: 'HIGH' } }])
const total = Number(process.env.BENCH_WAMIDS)
for (let start = 0; start < total; start += 1000) {
  await app.database.db.insert(messages).values(Array.from({ length: Math.min(1000, total - start) }, (_, offset) => ({
    id: `msg_bench${start + offset}`, workspaceId: workspace.id, phoneNumberId: number.id, recipient: '15550001111', type: 'text', payload: {}, status: 'sent' as const, wamid: `wamid.bench-${start + offset}`, attempts: 1
  })))
}
// BENCH_RELAY_URLS: the workspace's share of each delivery relayed to these targets (bench/relay.ts)
for (const relayUrl of process.env.BENCH_RELAY_URLS?.split(',') ?? []) await addRelay(app, { workspaceId: workspace.id, url: relayUrl })
await app.database.db.execute(sql`analyze`)

// BENCH_WEBHOOK_ABLATION=store-only: deliveries are stored and answered, never applied (the workers
// stop), to tell what storing alone costs from the whole intake. A measurement, never a deployment.
const storeOnly = process.env.BENCH_WEBHOOK_ABLATION === 'store-only'
if (storeOnly) await app.work.stop(0)

serve({
  /** inbox jobs not yet applied */
  backlog: async () => {
    if (storeOnly) return 0
    const counts = await jobSql.counts(app.database.db, INBOX_QUEUE)
    return counts.ready + counts.running
  },
  delivered: async () => Number(rowsOf<{ n: number }>(await app.database.db.execute(sql`select count(*)::int as n from messages where status = 'delivered'`))[0].n)
}, { url, phoneNumberId: number.id })
