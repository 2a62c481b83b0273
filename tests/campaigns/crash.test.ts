import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { postOwn } from '../helpers/http.js'
import { embeddedStore, postgresStore, seedWorkspace, startServer, withRuntime, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

const TOTAL = 200
const url = process.env.TEST_DATABASE_URL

async function postCampaign (base: string, authorization: string, body: Record<string, unknown>): Promise<{ status: number, json: any }> {
  const answer = await postOwn(`${base}/api/campaigns.php`, { authorization, 'content-type': 'application/json' }, JSON.stringify(body))
  return { status: answer.status, json: answer.body ? JSON.parse(answer.body) : undefined }
}

/** A workspace of the run's backend with the emulator's templates in its catalog. */
async function seedWithTemplates (store: ServerStore): Promise<{ workspaceId: string, authorization: string }> {
  const seeded = await seedWorkspace(store)
  const account = defaultAccount()
  await withRuntime(store, async ({ stores }) => {
    await stores.templates.replaceAll(seeded.workspaceId, account.wabaId, [{ name: 'hello_world', language: 'en_US', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hello World' }] }])
  })
  return seeded
}

const recipients = Array.from({ length: TOTAL }, (_, index) => ({ to: `1777600${String(index).padStart(4, '0')}` }))

/**
 * A campaign survives a crash (CONTRACT.md 15): the server is killed (SIGKILL) mid-drain; once a
 * server runs again every recipient has one message, ended sent (or `interrupted` for one under way
 * at the kill), and the upstream saw no recipient twice.
 */
describe(`campaigns: kill -9 mid-campaign, then a restart (${url ? 'PostgreSQL' : 'embedded'})`, () => {
  let emulator: Emulator
  let store: ServerStore

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    emulator.setStatusOptions('global', { statuses: [] })
    emulator.setFaults('global', { latencyMs: 200 })
    store = url ? await postgresStore(url) : await embeddedStore()
  })
  afterAll(async () => {
    await emulator?.close()
    await store?.close()
  })

  it('every recipient one message, sent once at most; the campaign completes after the restart', async () => {
    const { workspaceId, authorization } = await seedWithTemplates(store)
    const env = { ...store.env, GRAPH_API_URL: emulator.url, THROUGHPUT_MPS: '20', RATE_LIMIT_MAX: '100000', DISPATCHER_LEASE_MS: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
    const first = await startServer(env)
    const created = await postCampaign(first.url, authorization, { name: 'crash', template: 'hello_world', recipients })
    expect(created.status).toBe(201)
    await waitFor(async () => emulator.sentMessages.length >= 30, { timeoutMs: 30_000, what: 'the campaign under way' })
    await first.kill()
    const beforeRestart = emulator.sentMessages.length
    expect(beforeRestart).toBeLessThan(TOTAL)

    const second = await startServer(env)
    try {
      let seen = -1
      await waitFor(async () => {
        const now = emulator.sentMessages.length
        const stable = now === seen && now > beforeRestart
        seen = now
        return stable
      }, { timeoutMs: 60_000, intervalMs: 2000, what: 'the campaign to finish' })
    } finally {
      await second.stop()
    }
    const { records, campaign } = await withRuntime(store, async ({ stores }) => ({
      records: await stores.messages.list(workspaceId, { limit: 1000 }),
      campaign: await stores.campaigns.get(workspaceId, created.json.campaign.id)
    }))
    // one record per recipient: none materialised twice
    expect(records).toHaveLength(TOTAL)
    expect(new Set(records.map(record => record.recipient)).size).toBe(TOTAL)
    expect(records.filter(record => !['sent', 'failed'].includes(record.status)).map(record => record.status)).toEqual([])
    expect(records.filter(record => record.status === 'failed').every(record => record.errorCode === 'interrupted' || record.errorCode === 'outcome_unknown')).toBe(true)
    const sentTo = emulator.sentMessages.map(sent => sent.to)
    expect(sentTo.length).toBe(new Set(sentTo).size)
    expect(records.filter(record => record.status === 'sent').length).toBeGreaterThan(TOTAL - 10)
    expect(campaign?.campaign.status).toBe('completed')
    const counts = campaign!.counts
    expect(counts.rejected + counts.skipped + counts.waiting + counts.queued + counts.sent + counts.delivered + counts.read + counts.failed + counts.cancelled).toBe(TOTAL)
  }, 240_000)
})

describe.runIf(url)('campaigns: two processes on PostgreSQL share one campaign', () => {
  let emulator: Emulator
  let store: ServerStore

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    emulator.setStatusOptions('global', { statuses: [] })
    store = await postgresStore(url!)
  })
  afterAll(async () => {
    await emulator?.close()
    await store?.close()
  })

  it('each recipient sent exactly once, whichever process sent it', async () => {
    const { workspaceId, authorization } = await seedWithTemplates(store)
    const env = { ...store.env, GRAPH_API_URL: emulator.url, THROUGHPUT_MPS: '50', RATE_LIMIT_MAX: '100000', DISPATCHER_LEASE_MS: '1000', TEMPLATE_SYNC_INTERVAL_MS: '0' }
    const [first, second] = await Promise.all([startServer(env), startServer(env)])
    try {
      const created = await postCampaign(first.url, authorization, { name: 'shared', template: 'hello_world', recipients })
      expect(created.status).toBe(201)
      // the first stops half way: the second goes on with the same campaign
      await waitFor(async () => emulator.sentMessages.length >= TOTAL / 2, { timeoutMs: 60_000, what: 'half sent' })
      await first.stop()
      await waitFor(async () => emulator.sentMessages.length >= TOTAL, { timeoutMs: 60_000, what: 'all sent' })
      await new Promise(resolve => setTimeout(resolve, 2000))
      const perRecipient = new Map<string, number>()
      for (const sent of emulator.sentMessages) perRecipient.set(sent.to, (perRecipient.get(sent.to) ?? 0) + 1)
      expect(perRecipient.size).toBe(TOTAL)
      expect([...perRecipient.values()].every(count => count === 1)).toBe(true)
      const campaign = await withRuntime(store, async ({ stores }) => await stores.campaigns.get(workspaceId, created.json.campaign.id))
      expect(campaign?.campaign.status).toBe('completed')
    } finally {
      await first.stop()
      await second.stop()
    }
  }, 240_000)
})
