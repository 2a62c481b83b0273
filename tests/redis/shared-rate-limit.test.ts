import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { testConfig } from '../helpers/config.js'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const serverUrl = process.env.TEST_DATABASE_URL
const send = (app: FastifyInstance, authorization: string) =>
  app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization }, payload: { to: '15551234567', body: 'hi' } })

// Two processes share a database only on PostgreSQL; PGlite in memory is one process's own.
describe.skipIf(!serverUrl)('per-key rate limit shared through Redis by two gateways (PostgreSQL only)', () => {
  let first: TestGateway
  let second: FastifyInstance
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    const env = { REDIS_URL, RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' }
    first = await startGateway({ env, emulator: { statusDelaysMs: { sent: 0, delivered: 0, read: 0 } } })
    first.emulator.setStatusOptions('global', { statuses: [] })
    second = await buildApp({ config: testConfig({ ...env, DATABASE_URL: first.database.url, GRAPH_API_URL: first.emulator.url, APP_SECRET: first.emulator.appSecret }), logger: false })
    workspace = await connectedWorkspace(first)
  })
  afterAll(async () => {
    await second?.close()
    await first?.close()
  })

  it('counts a key\'s requests across both processes', async () => {
    const statuses = []
    for (const app of [first.app, second, first.app, second, first.app, second]) statuses.push((await send(app, workspace.authorization)).statusCode)
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
  })
})

describe('with Redis unreachable', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    gateway = await startGateway({ env: { REDIS_URL: 'redis://127.0.0.1:1' } })
    workspace = await connectedWorkspace(gateway)
  })
  afterAll(async () => { await gateway.close() })

  it('refuses sends at once with 503 rather than exceeding the limits, and sends nothing', async () => {
    const started = Date.now()
    const response = await send(gateway.app, workspace.authorization)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('1')
    expect(response.json()).toMatchObject({ ok: false, code: 'limits_unavailable', error: expect.stringMatching(/Redis/) })
    expect(gateway.emulator.sentMessages).toHaveLength(0)
  })

  it('keeps health answering', async () => {
    expect((await gateway.app.inject('/healthz')).statusCode).toBe(200)
  })
})
