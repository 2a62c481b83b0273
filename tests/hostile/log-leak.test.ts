import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { attemptSignIn, Browser, userIn } from '../dashboard/helpers.js'
import { testConfig } from '../helpers/config.js'
import { createTestDatabase, type TestDatabase } from '../helpers/database.js'
import { connectedWorkspace, freePort, type ConnectedWorkspace } from '../helpers/gateway.js'
import { signedHeaders } from '../helpers/webhook.js'
import { inboxDrained } from '../webhooks/helpers.js'
import { rawRequest } from './raw-http.js'

// Marked content: none of it may appear in any log line, whatever fails.
const TEXT = 'leak-marker-text-5c1e'
const PHONE = '15557654321'
const EMAIL = 'leak.marker.9d@example.test'
const KEY_NAME = 'leak-marker-key-name'
const MARKERS = [TEXT, PHONE, EMAIL, KEY_NAME]
// a key hash, a session token's hash: 64 hex digits
const HASH = /[0-9a-f]{64}/

describe('logs carry no message content, whichever error path is taken (LOG_LEVEL=debug)', () => {
  const lines: string[] = []
  let app: FastifyInstance
  let url: string
  let emulator: Emulator
  let database: TestDatabase
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    database = await createTestDatabase()
    const port = await freePort()
    const config = testConfig({ DATABASE_URL: database.url, PORT: String(port), GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, LOG_LEVEL: 'debug', MAX_ATTEMPTS: '1' })
    app = await buildApp({ config, logStream: { write: line => { lines.push(line) } } })
    await app.listen({ port, host: '127.0.0.1' })
    url = `http://127.0.0.1:${port}`
    workspace = await connectedWorkspace({ app, url, emulator, database, close: async () => {} })
  })
  afterAll(async () => {
    await app?.close()
    await emulator?.close()
    await database?.drop()
  })

  /** Makes every insert into `table` fail inside the database, its parameters in drizzle's error message. */
  async function failingInserts (table: string, work: () => Promise<void>): Promise<void> {
    await app.database.db.execute(sql.raw(`create or replace function leak_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`))
    await app.database.db.execute(sql.raw(`create trigger leak_test_refuse before insert on ${table} for each row execute function leak_test_refuse()`))
    try {
      await work()
    } finally {
      await app.database.db.execute(sql.raw(`drop trigger leak_test_refuse on ${table}`))
    }
  }

  const send = async (payload: Record<string, unknown>) =>
    await app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: workspace.authorization }, payload })

  it('provokes each error path with marked content, then finds none of it in the logs', async () => {
    // validation errors
    expect((await send({ to: `${PHONE}x`, body: TEXT })).statusCode).toBe(422)
    expect((await send({ to: PHONE, type: 'image', link: `https://example.test/${TEXT}.jpg` , caption: TEXT.repeat(200) })).statusCode).toBe(422)
    expect((await rawRequest(url, { target: `/api/messages.php?to=${PHONE}&since=0000-01-01&client_reference=${TEXT}`, headers: [['authorization', workspace.authorization]] })).status).toBe(422)
    // upstream errors: permanent, transient, a connection reset
    for (const to of ['15550000001', '15550000002', '15550000006']) expect((await send({ to, body: TEXT })).statusCode).toBeGreaterThanOrEqual(500)
    // database errors with the marked values as the statement's parameters
    await failingInserts('messages', async () => {
      expect((await send({ to: PHONE, body: TEXT })).statusCode).toBe(500)
      expect((await send({ to: PHONE, body: TEXT, client_reference: TEXT })).statusCode).toBe(500)
    })
    const login = await userIn(app, workspace.workspaceId, EMAIL)
    const browser = await Browser.signIn(app, login)
    await failingInserts('api_keys', async () => {
      expect((await browser.post('/dashboard/keys', { name: KEY_NAME, scopes: 'messages:send' }, { from: '/dashboard/keys' })).statusCode).toBeGreaterThanOrEqual(400)
    })
    await failingInserts('sessions', async () => {
      expect((await attemptSignIn(app, login)).statusCode).toBe(500)
    })
    // the dashboard: a wrong password, a hostile query
    expect((await attemptSignIn(app, { email: EMAIL, password: `${TEXT}-wrong` })).statusCode).toBe(401)
    expect((await browser.get(`/dashboard/messages?q=${TEXT}%00`)).statusCode).toBe(422)
    // webhooks: unsigned, signed but broken, poison kept aside
    expect((await app.inject({ method: 'POST', url: '/webhooks/whatsapp', payload: { text: TEXT, from: PHONE } })).statusCode).toBe(401)
    const poison = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value: { metadata: { phone_number_id: workspace.connection.phone_numbers[0].phone_number_id }, messages: [{ from: PHONE, id: `wamid.${TEXT}`, timestamp: '1795000000', type: 'text', text: { body: `${TEXT}\u0000` } }], statuses: [{ id: `wamid.${TEXT}`, status: 'read', timestamp: '1e20', recipient_id: PHONE }] } }] }] })
    expect((await app.inject({ method: 'POST', url: '/webhooks/whatsapp', payload: poison, headers: signedHeaders(poison, emulator.appSecret) })).statusCode).toBe(200)
    expect((await app.inject({ method: 'POST', url: '/webhooks/whatsapp', payload: `{"text":"${TEXT}"`, headers: signedHeaders(`{"text":"${TEXT}"`, emulator.appSecret) })).statusCode).toBe(422)
    await inboxDrained(app)
    await new Promise(resolve => setTimeout(resolve, 500))

    const database = lines.filter(line => line.includes('"DatabaseError"'))
    // the failures were logged, by SQL state and statement
    expect(database.some(line => line.includes('"code":"P0001"') && line.includes('"statement":"insert messages"')), database.join('\n').slice(0, 2000)).toBe(true)
    const leaking = lines.filter(line => MARKERS.some(marker => line.includes(marker)) || HASH.test(line))
    expect(leaking.map(line => line.slice(0, 600))).toEqual([])
    expect(lines.length).toBeGreaterThan(20)
  }, 180_000)

  it('PostgreSQL connections keep failing statements\' parameters out of the server log', async ({ skip }) => {
    if (app.database.kind !== 'postgres') skip()
    const [row] = await app.database.db.execute(sql`show log_parameter_max_length_on_error`) as unknown as { log_parameter_max_length_on_error: string }[]
    expect(row.log_parameter_max_length_on_error).toBe('0')
  })
})
