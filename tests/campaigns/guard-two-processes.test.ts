import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { loadConfig } from '../../src/config.js'
import { addEndpoint } from '../../src/events/endpoints.js'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { waitFor } from '../helpers/wait.js'
import { postgresStore, startServer, withRuntime, type RunningServer, type ServerStore } from '../helpers/server.js'
import { postWebhook } from '../helpers/webhook.js'
import { recipients } from './helpers.js'
import { sleep } from './helpers-guard.js'

const url = process.env.TEST_DATABASE_URL
const account = defaultAccount()
const [number] = account.phoneNumbers

/**
 * Two gateway processes on one PostgreSQL database (CONTRACT.md 21): each receives the FLAGGED
 * webhook (Meta's retry reaching both, say), and both sweeps see the recovery end; the campaign is
 * paused once and resumed once: one audit entry and one event each. The recovery outlives a restart
 * of both.
 */
describe.skipIf(!url)('quality guard: two processes on PostgreSQL act once', () => {
  let emulator: Emulator
  let store: ServerStore
  let receiver: Receiver
  const servers: RunningServer[] = []

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    store = await postgresStore(url!)
    receiver = await startReceiver()
  })
  afterAll(async () => {
    for (const server of servers) await server.stop()
    await receiver?.close()
    await emulator?.close()
    await store?.close()
  })

  it('pauses and resumes once; a recovery under way survives a restart', async () => {
    const env = { ...store.env, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, THROUGHPUT_MPS: '2', PAIR_RATE_BURST: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0', NUMBER_REFRESH_INTERVAL_MS: '0', QUALITY_GUARD_RECOVERY_MS: '8000', WEBHOOKS_ALLOW_PRIVATE: 'true' }
    const { workspaceId, authorization } = await withRuntime(store, async ({ stores, cipher }) => {
      const workspace = await stores.workspaces.create('guard', 'growth')
      await stores.connections.replace(workspace.id, account.wabaId, cipher.encrypt(account.accessToken), [
        { id: number.id, display_phone_number: number.displayPhoneNumber, quality_rating: 'GREEN', throughput: { level: number.throughputLevel } }
      ])
      await stores.templates.replaceAll(workspace.id, account.wabaId, account.templates)
      await addEndpoint({ webhooks: stores.webhooks, cipher, config: loadConfig({ ...env, LOG_LEVEL: 'silent' }) }, { workspaceId: workspace.id, url: receiver.url, events: ['campaign.paused', 'campaign.resumed'] })
      const { secret } = await stores.keys.create(workspace.id, 'guard')
      return { workspaceId: workspace.id, authorization: `Bearer ${secret}` }
    })
    servers.push(await startServer(env), await startServer(env))
    const created = await fetch(`${servers[0].url}/api/campaigns.php`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'two', template: 'hello_world', language: 'en_US', recipients: recipients(200, 30_000) }) })
    expect(created.status).toBe(201)
    const id = ((await created.json()) as { campaign: { id: string } }).campaign.id
    const statusOf = async () => ((await (await fetch(`${servers[1].url}/api/campaigns.php?id=${id}`, { headers: { authorization } })).json()) as { campaign: { status: string, paused_reason: string | null } }).campaign

    const signal = async (event: string) => {
      const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: account.wabaId, time: Math.floor(Date.now() / 1000), changes: [{ field: 'phone_number_quality_update', value: { display_phone_number: number.displayPhoneNumber.replace(/\D/g, ''), event, max_daily_conversations_per_business: 'TIER_2K' } }] }] })
      const answers = await Promise.all(servers.map(async server => await postWebhook(server.url, raw, emulator.appSecret)))
      expect(answers.map(answer => answer.status)).toEqual([200, 200])
    }
    await signal('FLAGGED')
    await waitFor(async () => (await statusOf()).paused_reason === 'number_flagged', { timeoutMs: 8000, what: 'paused' })
    await signal('UNFLAGGED')
    const resumeAfter = async () => await withRuntime(store, async ({ database }) => rowsOf<{ resume_after: string | null }>(await database.db.execute(sql`select resume_after::text from campaigns where id = ${id}`))[0].resume_after)
    await waitFor(async () => await resumeAfter() !== null, { timeoutMs: 8000, what: 'the recovery under way' })
    // the recovery is on the row: both processes stop, and a new one resumes the campaign when it ends
    const unflaggedAt = Date.now()
    for (const server of servers.splice(0)) await server.stop()
    if (Date.now() - unflaggedAt < 7000) expect(await resumeAfter()).not.toBeNull()
    servers.push(await startServer(env), await startServer(env))
    await waitFor(async () => (await statusOf()).status === 'running', { timeoutMs: 20_000, what: 'resumed after the restart' })
    await sleep(2500)

    const audit = await withRuntime(store, async ({ database }) => rowsOf<{ action: string, actor_kind: string, n: number }>(await database.db.execute(sql`select action, actor_kind, count(*)::int as n from audit_log
      where workspace_id = ${workspaceId} and target_id = ${id} and action in ('campaign.paused', 'campaign.resumed') group by 1, 2 order by 1`)))
    expect(audit.map(row => ({ ...row, n: Number(row.n) }))).toEqual([{ action: 'campaign.paused', actor_kind: 'system', n: 1 }, { action: 'campaign.resumed', actor_kind: 'system', n: 1 }])
    await waitFor(async () => receiver.events().length >= 2, { what: 'the events delivered' })
    await sleep(500)
    expect(receiver.events().map(event => event.type).sort()).toEqual(['campaign.paused', 'campaign.resumed'])
    await fetch(`${servers[0].url}/api/campaigns.php?id=${id}&action=cancel`, { method: 'POST', headers: { authorization } })
  }, 120_000)
})
