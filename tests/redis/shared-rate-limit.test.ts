import type { FastifyInstance } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { useGateway } from '../helpers/use-gateway.js'
import { testConfig } from '../helpers/config.js'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const serverUrl = process.env.TEST_DATABASE_URL
const send = (app: FastifyInstance, authorization: string) =>
  app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization }, payload: { to: '15551234567', body: 'hi' } })

// Two processes share a database only on PostgreSQL; PGlite in memory is one process's own.
describe.skipIf(!serverUrl)('per-key rate limit shared through Redis by two gateways (PostgreSQL only)', () => {
  const env = { REDIS_URL, RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' }
  let second: FastifyInstance
  const ctx = useGateway({
    env,
    emulator: { statusDelaysMs: { sent: 0, delivered: 0, read: 0 } },
    setup: async first => {
      first.emulator.setStatusOptions('global', { statuses: [] })
      second = await buildApp({ config: testConfig({ ...env, DATABASE_URL: first.database.url, GRAPH_API_URL: first.emulator.url, APP_SECRET: first.emulator.appSecret }), logger: false })
    }
  })
  // registered after useGateway, so that it runs before the first gateway closes
  afterAll(async () => { await second?.close() })

  it('counts a key\'s requests across both processes', async () => {
    const statuses = []
    for (const app of [ctx.gateway.app, second, ctx.gateway.app, second, ctx.gateway.app, second]) statuses.push((await send(app, ctx.workspace.authorization)).statusCode)
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
  })
})

describe('with Redis unreachable', () => {
  const ctx = useGateway({ env: { REDIS_URL: 'redis://127.0.0.1:1' } })

  it('refuses sends at once with 503 rather than exceeding the limits, and sends nothing', async () => {
    const started = Date.now()
    const response = await send(ctx.gateway.app, ctx.workspace.authorization)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('1')
    expect(response.json()).toMatchObject({ ok: false, code: 'limits_unavailable', error: expect.stringMatching(/Redis/) })
    expect(ctx.gateway.emulator.sentMessages).toHaveLength(0)
  })

  it('keeps health answering', async () => {
    expect((await ctx.gateway.app.inject('/healthz')).statusCode).toBe(200)
  })
})
