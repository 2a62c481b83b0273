import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectWorkspace } from '../../src/connections/connect.js'
import { resolveVerifyToken } from '../../src/connections/verify-token.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { startChild, type Child } from '../../bench/child.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { createUpstreamClient } from '../../src/upstream/client.js'
import { TEST_ENCRYPTION_KEY, testConfig } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'
import { startServer, type RunningServer } from '../helpers/server.js'

const serverUrl = process.env.TEST_DATABASE_URL
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const BURST = 400
const LIMIT = 80 // the emulator's STANDARD level

// Several processes share a database only on PostgreSQL.
describe.skipIf(!serverUrl)('two gateway processes on one PostgreSQL and one Redis (PostgreSQL only)', () => {
  let database: TestDatabase
  // in a process of its own, as the real upstream is: on the test's event loop, beside 400 requests
  // going out, it would read sends late and in bunches, and measure this process's load
  let emulator: Child<{ url: string }>
  interface EmulatorStats { errors: Record<string, number>, accepted: number[] }
  let runtime: Runtime
  let servers: RunningServer[] = []
  let authorization: string

  beforeAll(async () => {
    database = await createPostgresDatabase(serverUrl!)
    emulator = await startChild('emulator', { EMULATOR_THROUGHPUT_MPS: String(LIMIT) })
    const env = {
      DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, REDIS_URL,
      GRAPH_API_URL: emulator.ready.url, APP_SECRET: 'status webhooks are off', RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'warn'
    }
    servers = await Promise.all([startServer(env), startServer(env)])

    const config = testConfig({ DATABASE_URL: database.url })
    runtime = await openRuntime(config, 'cli')
    const workspace = await runtime.stores.workspaces.create('shared', 'scale')
    const account = defaultAccount()
    await connectWorkspace({
      stores: runtime.stores,
      cipher: runtime.cipher,
      upstream: createUpstreamClient({ baseUrl: emulator.ready.url, timeoutMs: 5000 }),
      callbackUrl: `${servers[0].url}/webhooks/whatsapp`,
      verifyToken: await resolveVerifyToken(config, runtime.database.db)
    }, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
    authorization = `Bearer ${(await runtime.stores.keys.create(workspace.id, 'burst')).secret}`
  }, 120_000)

  afterAll(async () => {
    await Promise.all(servers.map(server => server.stop()))
    await runtime?.close()
    await emulator?.stop()
    await database?.drop()
  })

  const send = async (server: RunningServer, to: string) => (await fetch(`${server.url}/api/messages.php`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ to, body: `to ${to}` })
  })).status

  it(`paces a burst of ${BURST} through both for one number: zero 130429, near the limit`, async () => {
    // warm: a process's first requests pay for compiling and opening connections, which is not pacing
    for (const [index, server] of servers.entries()) for (let warm = 0; warm < 10; warm++) expect(await send(server, `1555300${index}${String(warm).padStart(3, '0')}`)).toBe(200)
    await new Promise(resolve => setTimeout(resolve, 1100))
    await emulator.call('reset')

    const answers = await Promise.all(Array.from({ length: BURST }, async (_, index) => await send(servers[index % 2], `1555${String(2000000 + index)}`)))
    expect(answers.filter(status => status !== 200)).toEqual([])
    const stats = await emulator.call<EmulatorStats>('stats')
    expect(stats.errors[130429] ?? 0).toBe(0)
    const times = stats.accepted
    expect(times).toHaveLength(BURST)
    const spanSeconds = (Math.max(...times) - Math.min(...times)) / 1000
    const rate = (times.length - 1) / spanSeconds
    console.log(`[two processes] ${times.length} sends in ${spanSeconds.toFixed(2)} s: ${rate.toFixed(1)}/s of ${LIMIT}/s (${(100 * rate / LIMIT).toFixed(1)}%)`)
    // never faster than the limit allows (400 need at least 4 s). On a quiet machine the two reach
    // 93–97% of the limit (bench/RESULTS.md); two gateways, PostgreSQL, Redis and the emulator share
    // two cores here, so the bound below leaves room for noise, as the brief asks of timing checks.
    expect(spanSeconds).toBeGreaterThanOrEqual(Math.floor((BURST - 1) / LIMIT) - 0.05)
    expect(rate).toBeGreaterThanOrEqual(0.85 * LIMIT)
  }, 60_000)
})
