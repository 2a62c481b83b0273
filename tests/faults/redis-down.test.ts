import { describe, expect, it } from 'vitest'
import { attemptSignIn, userIn } from '../dashboard/helpers.js'
import { send } from '../helpers/send.js'
import { waitFor } from '../helpers/wait.js'
import { handOver } from '../queue/helpers.js'
import { acceptedIds, useFaultyGateway } from './helpers.js'

// CONTRACT.md 12, Redis unavailable (REDIS_URL set), on both database backends: the proxy in front of
// Redis resets every connection and refuses new ones until healed.
describe('foul weather: Redis unavailable', () => {
  const ctx = useFaultyGateway({ redis: true, env: { THROUGHPUT_MPS: '4' } })
  const text = (to: string) => send(ctx.gateway, { to, body: 'Hello' }, { authorization: ctx.workspace.authorization })

  it('a synchronous send answers 503 limits_unavailable with Retry-After and sends nothing; /readyz is 503; both recover', async () => {
    const { gateway } = ctx
    const before = gateway.emulator.sentMessages.length
    gateway.redisProxy!.cut()
    try {
      const refused = await waitFor(async () => { const response = await text('15552500001'); return response.statusCode === 503 && response }, { what: 'the 503' })
      expect(refused.headers['retry-after']).toBe('1')
      expect(refused.json()).toMatchObject({ ok: false, code: 'limits_unavailable' })
      expect((await gateway.app.inject('/readyz')).statusCode).toBe(503)
      expect(gateway.emulator.sentMessages).toHaveLength(before)
      // every rate-limited route, reads too: the per-key limit cannot be counted (docs/decisions/029-audience-rules.md)
      for (const url of ['/api/messages.php?limit=1', '/api/suppressions.php', '/api/usage.php']) {
        const read = await gateway.app.inject({ method: 'GET', url, headers: { authorization: ctx.workspace.authorization } })
        expect(read.statusCode, url).toBe(503)
        expect(read.json()).toMatchObject({ ok: false, code: 'limits_unavailable' })
      }
    } finally {
      gateway.redisProxy!.heal()
    }
    const healed = Date.now()
    await waitFor(async () => (await text('15552500001')).statusCode === 200, { what: 'a send once Redis answers' })
    expect(Date.now() - healed).toBeLessThan(5000)
    expect((await gateway.app.inject('/readyz')).statusCode).toBe(200)
  })

  it('queued sends never end because of Redis: they stay queued and are each sent once, soon after it answers again', async () => {
    const { gateway } = ctx
    // 4 a second: most of them are still queued when Redis goes away
    const ids: string[] = []
    for (let index = 0; index < 12; index++) ids.push((await handOver(gateway, ctx.workspace, { to: `155525100${String(index).padStart(2, '0')}` })).json().id)
    gateway.redisProxy!.cut()
    let healedAt = 0
    try {
      await new Promise(resolve => setTimeout(resolve, 2500))
      const records = await Promise.all(ids.map(async id => await gateway.app.messages.get(id)))
      expect(records.filter(record => record?.status === 'failed')).toEqual([])
      expect(records.filter(record => record?.status === 'queued').length).toBeGreaterThan(0)
    } finally {
      gateway.redisProxy!.heal()
      healedAt = Date.now()
    }
    await waitFor(async () => {
      const records = await Promise.all(ids.map(async id => await gateway.app.messages.get(id)))
      return records.every(record => record && ['sent', 'delivered', 'read'].includes(record.status))
    }, { timeoutMs: 30_000, what: 'every queued send sent' })
    const sentAfterHeal = gateway.emulator.sentMessages.filter(sent => sent.at >= healedAt).map(sent => sent.at)
    expect(Math.min(...sentAfterHeal) - healedAt).toBeLessThan(5000)
    const accepted = acceptedIds(gateway)
    for (const id of ids) expect(accepted.filter(accept => accept === id)).toHaveLength(1)
  })

  it('dashboard sign-in answers a 503 page with Retry-After, not a 500', async () => {
    const { gateway } = ctx
    const login = await userIn(gateway.app, ctx.workspace.workspaceId)
    gateway.redisProxy!.cut()
    try {
      const page = await waitFor(async () => { const response = await attemptSignIn(gateway.app, login); return response.statusCode !== 303 && response }, { what: 'a refused sign-in' })
      expect(page.statusCode).toBe(503)
      expect(page.headers['retry-after']).toBeDefined()
      expect(page.headers['content-type']).toMatch(/text\/html/)
      expect(page.body).toContain('Temporarily unavailable')
    } finally {
      gateway.redisProxy!.heal()
    }
    await waitFor(async () => (await attemptSignIn(gateway.app, login)).statusCode === 303, { what: 'a sign-in once Redis answers' })
  })
})
