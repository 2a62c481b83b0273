import { sql } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import { buildApp } from '../../src/app.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { testConfig } from '../../tests/helpers/config.js'
import { rssSampler, serve } from '../child.js'

// The gateway of bench/media.ts: embedded in-memory database, MEDIA_DIR from the parent, one workspace
// connected to the emulator's first number (GRAPH_API_URL, APP_SECRET and WEBHOOK_VERIFY_TOKEN from the parent).
const rss = rssSampler()
const app = await buildApp({ config: testConfig({ ...process.env as Record<string, string>, DATABASE_URL: 'memory://', TEMPLATE_SYNC_INTERVAL_MS: '0', RATE_LIMIT_MAX: '100000000' }), logger: false })
const url = await app.listen({ port: 0, host: '127.0.0.1' })
const account = defaultAccount()
const workspace = await app.workspaces.create('bench', 'scale')
await app.connections.replace(workspace.id, account.wabaId, app.cipher.encrypt(account.accessToken), account.phoneNumbers.map(number => ({ id: number.id, display_phone_number: number.displayPhoneNumber })))
const authorization = `Bearer ${(await app.keys.create(workspace.id, 'bench')).secret}`

serve({
  rss: () => ({ now: rss.now(), peak: rss.peak() }),
  resetPeak: () => rss.resetPeak(),
  /** inbound media rows, and those the mirror has stored */
  mirrored: async () => rowsOf<{ total: number, stored: number }>(await app.database.db.execute(sql`select count(*)::int as total, count(stored_at)::int as stored from media where origin = 'inbound'`))[0]
}, { url, authorization })
