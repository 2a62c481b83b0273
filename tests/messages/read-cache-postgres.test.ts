import type { LightMyRequestResponse } from 'fastify'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectWorkspace, disconnectWorkspace } from '../../src/connections/connect.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { TTL_MS } from '../../src/store/read-cache.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { createUpstreamClient } from '../../src/upstream/client.js'
import { runCli } from '../helpers/cli.js'
import { TEST_ENCRYPTION_KEY, testConfig } from '../helpers/config.js'
import { poolEnv } from '../helpers/database.js'
import { connectedWorkspace, type ConnectedWorkspace } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'

const serverUrl = process.env.TEST_DATABASE_URL
// CONTRACT.md 2: a revoked key is refused at most 1 s later, also across processes.
const CONTRACT_MS = 1000

let sent = 0
const text = () => ({ to: `1555${String(4_000_000 + sent++)}`, body: 'cache' })

// Several processes share a database only on PostgreSQL.
describe.skipIf(!serverUrl)('a change made by another process reaches the cache of a running server (PostgreSQL only)', () => {
  let other: Runtime
  let dataDir: string
  const ctx = useGateway({
    plan: null,
    setup: async gateway => {
      // What the CLI opens: its own connection, its own stores and cache.
      other = await openRuntime(testConfig({ DATABASE_URL: gateway.database.url }), 'cli')
      dataDir = await mkdtemp(join(tmpdir(), 'outbound-cache-'))
      // The first send of a fresh app is slow (compilation, first connections): not the one to time.
      await warmed()
    }
  })
  afterAll(async () => {
    await other?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  /** Sends until the answer is `status`; fails past CONTRACT_MS. Returns when it came, counted from `since`. */
  async function answeredWithin (status: number, workspace: ConnectedWorkspace, since = Date.now()): Promise<number> {
    let last: LightMyRequestResponse | undefined
    await waitFor(async () => (last = await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode === status,
      { timeoutMs: CONTRACT_MS, intervalMs: 10, what: () => `${status}: still ${last?.statusCode} ${last?.body}` })
    return Date.now() - since
  }

  /** A workspace whose key and connection the server has just cached, and when: the row was read after cachedAt. */
  async function warmed (): Promise<{ workspace: ConnectedWorkspace, cachedAt: number }> {
    const workspace = await connectedWorkspace(ctx.gateway)
    const cachedAt = Date.now()
    expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(200)
    return { workspace, cachedAt }
  }

  // Behind a transaction pooler there is no session to LISTEN on (CONTRACT.md 22): the cache's own
  // expiry, polling the rows again, keeps the contract's second.
  const notified = () => ctx.gateway.app.database.poolMode !== 'transaction'

  it('refuses a key revoked elsewhere, dropped by the notification before the TTL would (in transaction mode, by the TTL)', async () => {
    const { workspace, cachedAt } = await warmed()
    await other.stores.keys.revoke(workspace.apiKeyId)
    // Without the notification the cached row would be served until cachedAt + TTL_MS at the earliest.
    if (notified()) expect(await answeredWithin(401, workspace, cachedAt)).toBeLessThan(TTL_MS)
    else await answeredWithin(401, workspace)
  })

  it('answers 403 after a downgrade elsewhere, and 200 after the upgrade', async () => {
    const { workspace } = await warmed()
    await other.stores.workspaces.setPlan(workspace.workspaceId, 'free')
    await answeredWithin(403, workspace)
    await other.stores.workspaces.setPlan(workspace.workspaceId, 'growth')
    await answeredWithin(200, workspace)
  })

  it('answers 409 after a disconnect elsewhere, and 200 after a reconnect', async () => {
    const { workspace } = await warmed()
    await disconnectWorkspace({ stores: other.stores }, workspace.workspaceId)
    await answeredWithin(409, workspace)
    const account = defaultAccount()
    await connectWorkspace({
      stores: other.stores,
      cipher: other.cipher,
      upstream: createUpstreamClient({ baseUrl: ctx.gateway.emulator.url, timeoutMs: 5000 }),
      callbackUrl: `${ctx.gateway.url}/webhooks/whatsapp`,
      verifyToken: ctx.gateway.app.webhookVerifyToken
    }, { workspaceId: workspace.workspaceId, wabaId: account.wabaId, accessToken: account.accessToken })
    await answeredWithin(200, workspace)
  })

  it('the real CLI: the request right after `outbound workspace plan` and `outbound keys revoke` sees them (in transaction mode, within 1 s)', async () => {
    const { workspace } = await warmed()
    const env = { DATABASE_URL: ctx.gateway.database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DATA_DIR: dataDir, ...poolEnv() }
    const cli = async (...args: string[]) => await whileCached(workspace, async () => (await runCli(args, env)).code)
    const seen = async (status: number) => {
      if (notified()) expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(status)
      else await answeredWithin(status, workspace)
    }
    expect(await cli('workspace', 'plan', '--workspace', workspace.workspaceId, '--plan', 'free')).toBe(0)
    await seen(403)
    expect(await cli('keys', 'revoke', '--id', workspace.apiKeyId)).toBe(0)
    await seen(401)
  })

  /** Runs the command while the server keeps re-reading the key, so that only a notification can explain a change seen right after. */
  async function whileCached<T> (workspace: ConnectedWorkspace, command: () => Promise<T>): Promise<T> {
    const secret = workspace.authorization.slice('Bearer '.length)
    let running = true
    const reads = (async () => {
      while (running) {
        await ctx.gateway.app.keys.verify(secret)
        await new Promise(resolve => setTimeout(resolve, 50))
      }
    })()
    try {
      return await command()
    } finally {
      running = false
      await reads
    }
  }
})
