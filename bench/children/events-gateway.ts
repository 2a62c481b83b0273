import { sql } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import { messages } from '../../db/schema.js'
import { buildApp } from '../../src/app.js'
import { addEndpoint } from '../../src/events/endpoints.js'
import { emitEvents } from '../../src/events/outbox.js'
import { testConfig } from '../../tests/helpers/config.js'
import { serve } from '../child.js'

// The gateway with two workspaces on one number id: `quiet` subscribes to nothing, `subscribed` has
// one endpoint (the receiver's URL, BENCH_RECEIVER_URL) for every event type.
const app = await buildApp({ config: testConfig({ ...process.env as Record<string, string>, TEMPLATE_SYNC_INTERVAL_MS: '0', WEBHOOKS_ALLOW_PRIVATE: 'true' }), logger: false })
const url = await app.listen({ port: 0, host: '127.0.0.1' })
const phoneNumberId = process.env.BENCH_PHONE_NUMBER_ID!
const quiet = await app.workspaces.create('no endpoint', 'growth')
const subscribed = await app.workspaces.create('one endpoint', 'growth')
await addEndpoint(app, { workspaceId: subscribed.id, url: process.env.BENCH_RECEIVER_URL! })
const workspaces = { quiet: quiet.id, subscribed: subscribed.id }

serve({
  /** sent records for these wamids, so that a `delivered` status moves each */
  async seed (workspace: keyof typeof workspaces, wamids: string[]) {
    for (let start = 0; start < wamids.length; start += 500) {
      await app.database.db.insert(messages).values(wamids.slice(start, start + 500).map(wamid => ({
        id: `msg_${wamid}`, workspaceId: workspaces[workspace], phoneNumberId, recipient: '15550001111', type: 'text', payload: {}, status: 'sent' as const, wamid, attempts: 1
      })))
    }
    await app.database.db.execute(sql`analyze`)
  },
  async delivered (workspace: keyof typeof workspaces, wamidPrefix: string) {
    return Number(rowsOf<{ n: number }>(await app.database.db.execute(sql`select count(*)::int as n from messages
      where workspace_id = ${workspaces[workspace]} and status = 'delivered' and wamid like ${wamidPrefix + '%'}`))[0].n)
  },
  /** deliveries by attempts and last error: a retried delivery shows why */
  async attempts () {
    return rowsOf(await app.database.db.execute(sql`select attempts, status, last_error, count(*)::int as n from webhook_deliveries group by 1, 2, 3 order by 4 desc`))
  },
  /** `count` events committed at once to the subscribed workspace, for the outbox to drain */
  async emit (count: number) {
    await app.database.db.transaction(async tx => await emitEvents(tx, Array.from({ length: count }, (_, index) => ({ workspaceId: subscribed.id, type: 'message.read' as const, data: { index } }))))
    app.outbox.committed()
  }
}, { url })
