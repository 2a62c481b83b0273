import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectWorkspace } from '../../src/connections/connect.js'
import { resolveVerifyToken } from '../../src/connections/verify-token.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { pngImage, sampleFile } from '../../src/sandbox/sample-media.js'
import { createUpstreamClient } from '../../src/upstream/client.js'
import { TEST_ENCRYPTION_KEY, testConfig } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'
import { form } from '../helpers/send.js'
import { startS3, type TestS3 } from '../helpers/s3.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { padded, useMediaDir } from './helpers.js'

const serverUrl = process.env.TEST_DATABASE_URL
const NUMBER = defaultAccount().phoneNumbers[0].id
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

// Several processes share a database only on PostgreSQL.
describe.skipIf(!serverUrl)('two gateway processes sharing one bucket (PostgreSQL only)', () => {
  const mediaDirs = [useMediaDir(), useMediaDir()]
  let database: TestDatabase
  let emulator: Emulator
  let s3: TestS3
  let runtime: Runtime
  let servers: RunningServer[] = []
  let authorization: string
  let workspaceId: string

  beforeAll(async () => {
    database = await createPostgresDatabase(serverUrl!)
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    s3 = await startS3()
    const env = { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, LOG_LEVEL: 'warn', ...s3.env() }
    // each its own MEDIA_DIR: the bucket is all they share
    servers = await Promise.all(mediaDirs.map(async dir => await startServer({ ...env, MEDIA_DIR: dir })))
    const config = testConfig({ DATABASE_URL: database.url })
    runtime = await openRuntime(config, 'cli')
    const workspace = await runtime.stores.workspaces.create('several hosts', 'growth')
    workspaceId = workspace.id
    const account = defaultAccount()
    await connectWorkspace({
      stores: runtime.stores,
      cipher: runtime.cipher,
      upstream: createUpstreamClient({ baseUrl: emulator.url, timeoutMs: 5000 }),
      // the upstream's webhooks reach the first process only
      callbackUrl: `${servers[0].url}/webhooks/whatsapp`,
      verifyToken: await resolveVerifyToken(config, runtime.database.db)
    }, { workspaceId, wabaId: account.wabaId, accessToken: account.accessToken })
    authorization = `Bearer ${(await runtime.stores.keys.create(workspaceId, 'hosts')).secret}`
  }, 120_000)

  afterAll(async () => {
    await Promise.all(servers.map(async server => await server.stop()))
    await runtime?.close()
    await emulator?.close()
    await s3?.close()
    await database?.drop()
  })

  const download = async (server: RunningServer, mediaId: unknown) => await fetch(`${server.url}/api/media.php?id=${String(mediaId)}&download=1`, { headers: { authorization } })

  it('a file uploaded through one is downloaded through the other after the upstream forgot it', async () => {
    const bytes = padded(sampleFile('document').bytes, 6 * 1024 * 1024)
    const uploaded = await fetch(`${servers[0].url}/api/media.php`, { method: 'POST', headers: { authorization }, body: form([['file', { bytes, filename: 'shared.pdf' }]]) })
    const body = await uploaded.json() as Record<string, unknown>
    expect(uploaded.status).toBe(200)
    emulator.expireMedia(String(body.media_id))
    const served = await download(servers[1], body.media_id)
    expect(served.status).toBe(200)
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(sha256(bytes))
  })

  it('inbound media mirrored by the process that received the webhook are served by the other', async () => {
    const bytes = pngImage(30, 30, 2)
    const { mediaId } = await emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    await waitFor(async () => Boolean((await runtime.stores.media.find(workspaceId, mediaId!))?.storedAt), { what: 'the file mirrored', timeoutMs: 20_000 })
    expect(await s3.keys()).toContain(`media/${sha256(bytes)}`)
    emulator.expireMedia(mediaId!)
    const served = await download(servers[1], mediaId)
    expect(served.status).toBe(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
  })
})
