import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGateway, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { postWebhook } from '../helpers/webhook.js'
import { envelope, messagesValue, status } from './helpers.js'

const url = process.env.TEST_DATABASE_URL

// Only PostgreSQL can be taken away from a running gateway: the embedded database lives in its process.
describe(`webhooks while the database is down (${url ? 'PostgreSQL' : 'PostgreSQL, skipped: set TEST_DATABASE_URL'})`, () => {
  let gateway: TestGateway
  let admin: postgres.Sql
  let name: string

  beforeAll(async () => {
    if (!url) return
    gateway = await startGateway()
    admin = postgres(url, { max: 1, onnotice: () => {} })
    name = new URL(gateway.database.url).pathname.slice(1)
  })
  afterAll(async () => {
    await admin?.unsafe(`alter database ${name} allow_connections true`)
    await admin?.end()
    await gateway?.close()
  })

  async function post (): Promise<{ status: number, retryAfter: string | undefined, body: unknown }> {
    const raw = JSON.stringify(envelope('messages', messagesValue({ statuses: [status('wamid.while-down', 'delivered', '1795000000')] })))
    const answer = await postWebhook(gateway.url, raw, gateway.emulator.appSecret)
    return { status: answer.status, retryAfter: answer.headers['retry-after'], body: JSON.parse(answer.body) }
  }

  it.skipIf(!url)('answers 503 with Retry-After when the delivery cannot be stored, and 200 again once the database is back', async () => {
    await admin.unsafe(`alter database ${name} allow_connections false`)
    await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`)
    const down = await post()
    expect(down).toMatchObject({ status: 503, retryAfter: '2', body: { ok: false, code: 'database_unavailable', error: expect.stringMatching(/could not be stored/) } })

    await admin.unsafe(`alter database ${name} allow_connections true`)
    const back = await waitFor(async () => { const answer = await post(); return answer.status === 200 && answer }, { what: 'a 200 once the database is back' })
    expect(back.body).toEqual({ ok: true })
    await waitFor(async () => (await gateway.app.statusEvents.byWamid('wamid.while-down')).length === 1, { what: 'the delivery applied' })
  })
})
