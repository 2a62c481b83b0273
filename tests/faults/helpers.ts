import { afterAll, beforeAll } from 'vitest'
import { buildApp } from '../../src/app.js'
import { startEmulator, type EmulatorOptions } from '../../src/sandbox/emulator/index.js'
import { testConfig } from '../helpers/config.js'
import { createTestDatabase } from '../helpers/database.js'
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js'
import { connectedWorkspace, freePort, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'

/** The Redis of the tests (each engineer's own database index), reached through a fault proxy. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/4'

export interface FaultyGateway extends TestGateway {
  /** in front of PostgreSQL (PostgreSQL runs only: PGlite lives in the process) */
  databaseProxy: FaultProxy | undefined
  /** in front of Redis, when asked for */
  redisProxy: FaultProxy | undefined
}

/**
 * A listening gateway whose PostgreSQL (when TEST_DATABASE_URL is set) and, with `redis`, whose Redis
 * are reached through fault proxies that the test cuts and heals. The machine's services are never touched.
 */
export async function startFaultyGateway (options: { env?: Record<string, string>, emulator?: EmulatorOptions, redis?: boolean } = {}): Promise<FaultyGateway> {
  const emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, ...options.emulator })
  const database = await createTestDatabase()
  const postgres = database.url.startsWith('postgres') ? await startFaultProxy({ port: Number(new URL(database.url).port || 5432) }) : undefined
  const redis = options.redis ? await startFaultProxy({ port: Number(new URL(REDIS_URL).port || 6379) }) : undefined
  const port = await freePort()
  const config = testConfig({
    DATABASE_URL: postgres ? postgres.url(database.url) : database.url,
    ...(redis && { REDIS_URL: redis.url(REDIS_URL) }),
    PORT: String(port),
    GRAPH_API_URL: emulator.url,
    APP_SECRET: emulator.appSecret,
    TEMPLATE_SYNC_INTERVAL_MS: '0',
    ...options.env
  })
  const app = await buildApp({ config, logger: false })
  await app.listen({ port, host: '127.0.0.1' })
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    emulator,
    database,
    databaseProxy: postgres,
    redisProxy: redis,
    async close () {
      postgres?.heal()
      redis?.heal()
      await app.close()
      await emulator.close()
      await postgres?.close()
      await redis?.close()
      await database.drop()
    }
  }
}

/** startFaultyGateway for the enclosing describe, with a connected Growth workspace; read its properties inside hooks and tests. */
export function useFaultyGateway (options: Parameters<typeof startFaultyGateway>[0] = {}) {
  let gateway: FaultyGateway | undefined
  let workspace: ConnectedWorkspace | undefined
  beforeAll(async () => {
    gateway = await startFaultyGateway(options)
    workspace = await connectedWorkspace(gateway)
  })
  afterAll(async () => { await gateway?.close() })
  return {
    get gateway (): FaultyGateway { return gateway! },
    get workspace (): ConnectedWorkspace { return workspace! }
  }
}

/** The record ids the emulator accepted sends for, once per acceptance (its biz_opaque_callback_data). */
export function acceptedIds (gateway: TestGateway): string[] {
  return gateway.emulator.sentMessages.map(sent => String((sent.payload as { biz_opaque_callback_data?: unknown }).biz_opaque_callback_data))
}

/** How long `work` took, in ms, with what it returned. */
export async function timed<T> (work: () => Promise<T>): Promise<{ ms: number, value: T }> {
  const started = Date.now()
  const value = await work()
  return { ms: Date.now() - started, value }
}

/** `work`'s value, or undefined while it fails: for polling the database right after it came back. */
export async function unlessFailing<T> (work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work()
  } catch {
    return undefined
  }
}
