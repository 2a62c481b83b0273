import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { runCli } from '../helpers/cli.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'
import { freePort } from '../helpers/gateway.js'
import { startServer } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

const account = defaultAccount()
const serverUrl = process.env.TEST_DATABASE_URL

describe('outbound connect, templates sync, disconnect', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator() })
  afterAll(async () => { await emulator.close() })

  it('embedded: connects while the server is stopped, reports the failed registration, and the server registers once it listens', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'outbound-cli-connect-'))
    const port = await freePort()
    const env = { DATA_DIR: dataDir, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, PORT: String(port) }
    try {
      const workspace = (await runCli(['workspace', 'create', '--name', 'Acme', '--plan', 'growth'], env)).json
      const connected = await runCli(['connect', '--workspace', workspace.id, '--waba-id', account.wabaId, '--access-token', account.accessToken], env)
      expect(connected.code).toBe(0)
      expect(connected.json).toMatchObject({
        connection_id: expect.any(String),
        phone_numbers: account.phoneNumbers.map(number => ({ phone_number_id: number.id, display_phone_number: number.displayPhoneNumber })),
        templates: account.templates.length,
        webhook_registered: false
      })
      expect(connected.json.webhook_error).toMatch(/2200|verification/i)
      expect(connected.stdout + connected.stderr).not.toContain(account.accessToken)

      const server = await startServer(env)
      try {
        await waitFor(async () => emulator.callbackFor(account.wabaId) === `http://127.0.0.1:${port}/webhooks/whatsapp`, { what: 'the server to register the webhook' })
      } finally {
        await server.stop()
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 90_000)

  it('refuses a wrong access token with the upstream\'s message (exit 1)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'outbound-cli-connect-'))
    const env = { DATA_DIR: dataDir, GRAPH_API_URL: emulator.url }
    try {
      const workspace = (await runCli(['workspace', 'create', '--name', 'Acme', '--plan', 'growth'], env)).json
      const refused = await runCli(['connect', '--workspace', workspace.id, '--waba-id', account.wabaId, '--access-token', 'wrong-token'], env)
      expect(refused.code).toBe(1)
      expect(refused.json).toEqual({ ok: false, error: expect.stringMatching(/upstream refused: .*access token.*\(code 190\)/i) })
      expect((await runCli(['disconnect', '--workspace', workspace.id], env)).code).toBe(1)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  describe.skipIf(!serverUrl)('on PostgreSQL while the server runs (skipped without TEST_DATABASE_URL)', () => {
    let database: TestDatabase
    beforeAll(async () => { database = await createPostgresDatabase(serverUrl!) })
    afterAll(async () => { await database.drop() })

    it('registers through the running server\'s handshake, syncs, and disconnects', async () => {
      const port = await freePort()
      const env = { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, PORT: String(port) }
      const server = await startServer(env)
      try {
        const workspace = (await runCli(['workspace', 'create', '--name', 'Acme', '--plan', 'growth'], env)).json
        const connected = await runCli(['connect', '--workspace', workspace.id, '--waba-id', account.wabaId, '--access-token', account.accessToken], env)
        expect(connected.json).toMatchObject({ webhook_registered: true, templates: account.templates.length })
        expect(emulator.callbackFor(account.wabaId)).toBe(`http://127.0.0.1:${port}/webhooks/whatsapp`)
        expect((await runCli(['templates', 'sync', '--workspace', workspace.id], env)).json).toEqual({ synced: account.templates.length })
        expect((await runCli(['disconnect', '--workspace', workspace.id], env)).json).toEqual({ ok: true })
        const send = await fetch(`http://127.0.0.1:${port}/api/messages.php`, { method: 'POST' })
        expect(send.status).toBe(401)
      } finally {
        await server.stop()
      }
    }, 90_000)
  })
})
