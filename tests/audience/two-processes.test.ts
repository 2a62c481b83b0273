import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { sendOver } from '../helpers/send.js'
import { postgresStore, startServer, withRuntime, type ServerStore } from '../helpers/server.js'

const url = process.env.TEST_DATABASE_URL
const LIMIT = 5
const PER_PROCESS = 12

/**
 * Two gateway processes on one PostgreSQL database share one messaging-limit count (CONTRACT.md 14):
 * when both send templates to new recipients at once, exactly LIMIT recipients are reached.
 */
describe.skipIf(!url)('audience: two processes on PostgreSQL share the messaging limit', () => {
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

  it('no over-send when both send at once', async () => {
    const authorization = await withRuntime(store, async ({ stores, cipher }) => {
      const account = defaultAccount()
      const workspace = await stores.workspaces.create('limit', 'growth')
      const [number] = account.phoneNumbers
      await stores.connections.replace(workspace.id, account.wabaId, cipher.encrypt(account.accessToken), [
        { id: number.id, display_phone_number: number.displayPhoneNumber, whatsapp_business_manager_messaging_limit: String(LIMIT) }
      ])
      await stores.templates.replaceAll(workspace.id, account.wabaId, account.templates)
      const { secret } = await stores.keys.create(workspace.id, 'limit')
      return `Bearer ${secret}`
    })
    const env = { ...store.env, GRAPH_API_URL: emulator.url, RATE_LIMIT_MAX: '100000', TEMPLATE_SYNC_INTERVAL_MS: '0', NUMBER_REFRESH_INTERVAL_MS: '0' }
    const first = await startServer(env)
    let second: Awaited<ReturnType<typeof startServer>> | undefined
    try {
      second = await startServer(env)
      const other = second.url
      const send = async (base: string, index: number) => (await sendOver(base, authorization, { to: `1555600${String(index).padStart(4, '0')}`, type: 'template', template: 'hello_world' })).status
      const statuses = await Promise.all([
        ...Array.from({ length: PER_PROCESS }, async (_, index) => await send(first.url, index)),
        ...Array.from({ length: PER_PROCESS }, async (_, index) => await send(other, PER_PROCESS + index))
      ])
      expect(statuses.filter(status => status === 200)).toHaveLength(LIMIT)
      expect(statuses.filter(status => status === 429)).toHaveLength(2 * PER_PROCESS - LIMIT)
      expect(new Set(emulator.sentMessages.map(sent => sent.to)).size).toBe(LIMIT)
    } finally {
      await Promise.all([first.stop(), second?.stop()])
    }
  })
})
