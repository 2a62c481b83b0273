import { describe, expect, it } from 'vitest'
import { connectedWorkspace } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope, RECIPIENT } from './helpers.js'

const TEXT = { to: RECIPIENT, body: 'Hello' }
const MAX = 3
const WINDOW_MS = 2000

describe('POST /api/messages.php: rate limit per key (429)', () => {
  // each test connects its own workspace, so that each has its own key's window
  const ctx = useGateway({ env: { RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) }, plan: null })

  it('allows RATE_LIMIT_MAX requests per key and window, then 429 with Retry-After and the RateLimit headers', async () => {
    const { authorization } = await connectedWorkspace(ctx.gateway)
    for (let i = 0; i < MAX; i++) {
      const response = await send(ctx.gateway, TEXT, { authorization })
      expect(response.statusCode).toBe(200)
      expect(response.headers['ratelimit-limit']).toBe(String(MAX))
      expect(response.headers['ratelimit-remaining']).toBe(String(MAX - i - 1))
    }
    const refused = await send(ctx.gateway, TEXT, { authorization })
    expectEnvelope(refused, 429, 'rate_limited')
    const retryAfter = Number(refused.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000)
    expect(refused.headers['ratelimit-limit']).toBe(String(MAX))
    expect(refused.headers['ratelimit-remaining']).toBe('0')
    expect(refused.headers['ratelimit-reset']).toBeDefined()
  })

  it('counts per key: another key of the same workspace and address is not limited', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    for (let i = 0; i <= MAX; i++) await send(ctx.gateway, TEXT, { authorization: workspace.authorization })
    expectEnvelope(await send(ctx.gateway, TEXT, { authorization: workspace.authorization }), 429, 'rate_limited')
    const { secret } = await ctx.gateway.app.keys.create(workspace.workspaceId, 'second')
    expect((await send(ctx.gateway, TEXT, { authorization: `Bearer ${secret}` })).statusCode).toBe(200)
  })

  it('allows the key again once the window has passed', async () => {
    const { authorization } = await connectedWorkspace(ctx.gateway)
    for (let i = 0; i < MAX; i++) await send(ctx.gateway, TEXT, { authorization })
    expect((await send(ctx.gateway, TEXT, { authorization })).statusCode).toBe(429)
    await new Promise(resolve => setTimeout(resolve, WINDOW_MS + 200))
    expect((await send(ctx.gateway, TEXT, { authorization })).statusCode).toBe(200)
  })

  it('limits before the plan, the connection and the body are looked at: 429 comes before 403 and 422', async () => {
    const free = await connectedWorkspace(ctx.gateway, 'free')
    for (let i = 0; i < MAX; i++) expect((await send(ctx.gateway, { to: 'x' }, { authorization: free.authorization })).statusCode).toBe(403)
    expectEnvelope(await send(ctx.gateway, { to: 'x' }, { authorization: free.authorization }), 429, 'rate_limited')
  })

  it('a bad key gets 401, not a key limit; a caller that keeps failing is limited by address', async () => {
    const remoteAddress = '192.0.2.10'
    for (let i = 0; i < MAX; i++) {
      expectEnvelope(await send(ctx.gateway, TEXT, { headers: { authorization: 'Bearer wrong' }, remoteAddress }), 401, 'unauthorized')
    }
    const limited = await send(ctx.gateway, TEXT, { headers: { authorization: 'Bearer wrong' }, remoteAddress })
    expectEnvelope(limited, 429, 'rate_limited')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expectEnvelope(await send(ctx.gateway, TEXT, { remoteAddress }), 429, 'rate_limited')
    // Failures from one address never hold back a valid key sent from it, nor other addresses.
    const { authorization } = await connectedWorkspace(ctx.gateway)
    expect((await send(ctx.gateway, TEXT, { authorization, remoteAddress })).statusCode).toBe(200)
    expectEnvelope(await send(ctx.gateway, TEXT, { headers: { authorization: 'Bearer wrong' }, remoteAddress: '192.0.2.11' }), 401, 'unauthorized')
  })
})
