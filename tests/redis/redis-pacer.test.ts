import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedisPacer } from '../../src/pacer/redis-pacer.js'
import { PacerRefusal, type Pacer, type SendTicket } from '../../src/pacer/types.js'
import { busiestWindow } from '../pacer/helpers.js'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const far = () => Date.now() + 60_000

/** Two pacers on two connections, as two processes would have them, over one key prefix of their own. */
describe('the Redis pacer (the machine\'s Redis)', () => {
  const prefix = `outbound:test:${randomBytes(4).toString('hex')}:`
  const connections: Redis[] = []
  const pacers: Pacer[] = []

  async function pacerFor (options: { queueLimit?: number, pairRate?: { burst: number, intervalMs: number } } = {}): Promise<Pacer> {
    const redis = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true })
    connections.push(redis)
    await redis.connect()
    const pacer = createRedisPacer({ redis, prefix, queueLimit: options.queueLimit ?? 1000, pairRate: options.pairRate ?? { burst: 1000, intervalMs: 6000 }, upstreamTimeoutMs: 5000 })
    pacers.push(pacer)
    return pacer
  }

  afterAll(async () => {
    pacers.forEach(pacer => pacer.close())
    const cleaner = new Redis(REDIS_URL)
    const keys = await cleaner.keys(`${prefix}*`)
    if (keys.length > 0) await cleaner.del(...keys)
    cleaner.disconnect()
    connections.forEach(redis => redis.disconnect())
  })

  it('two processes together never grant more than the number\'s limit in any second', async () => {
    const [first, second] = [await pacerFor(), await pacerFor()]
    const mps = 20
    const grants: number[] = []
    await Promise.all(Array.from({ length: 60 }, async (_, index) => {
      const ticket: SendTicket = { numberId: 'shared-number', recipient: `r${index}`, mps }
      const permit = await (index % 2 === 0 ? first : second).acquire(ticket, { deadline: far() })
      grants.push(performance.now())
      permit.done()
    }))
    expect(busiestWindow(grants)).toBeLessThanOrEqual(mps)
    const spanSeconds = (Math.max(...grants) - Math.min(...grants)) / 1000
    // 60 at 20/s: the limit forces at least 2 s; generous above, the machine is shared
    expect(spanSeconds).toBeGreaterThanOrEqual(2)
    expect(spanSeconds).toBeLessThan(6)
  })

  it('holds a number\'s sends back while earlier ones are unanswered: until a second after their answer', async () => {
    const pacer = await pacerFor()
    const ticket = (index: number): SendTicket => ({ numberId: 'slow-number', recipient: `r${index}`, mps: 2 })
    const first = [await pacer.acquire(ticket(0), { deadline: far() }), await pacer.acquire(ticket(1), { deadline: far() })]
    await sleep(700)
    first.forEach(permit => permit.done())
    const answered = performance.now()
    await pacer.acquire(ticket(2), { deadline: far() })
    // the answer's write to Redis is not awaited: allow its round trip
    expect(performance.now() - answered).toBeGreaterThanOrEqual(950)
  })

  it('gives a pair its burst, then one send per refill', async () => {
    const pacer = await pacerFor({ pairRate: { burst: 2, intervalMs: 300 } })
    const ticket: SendTicket = { numberId: 'pair-number', recipient: '15550001111', mps: 100 }
    const started = performance.now()
    for (let index = 0; index < 3; index++) (await pacer.acquire(ticket, { deadline: far() })).done()
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
  })

  it('refuses at once past its wait list and when the wait would outlast the deadline', async () => {
    const pacer = await pacerFor({ queueLimit: 1, pairRate: { burst: 1, intervalMs: 10_000 } })
    const ticket: SendTicket = { numberId: 'busy-number', recipient: '15550002222', mps: 100 }
    ;(await pacer.acquire(ticket, { deadline: far() })).done()
    const started = Date.now()
    const late = await pacer.acquire(ticket, { deadline: Date.now() + 2000 }).catch((error: unknown) => error)
    expect(late).toBeInstanceOf(PacerRefusal)
    expect((late as PacerRefusal).reason).toBe('deadline')
    expect(Date.now() - started).toBeLessThan(500)

    const controller = new AbortController()
    const waiting = pacer.acquire(ticket, { deadline: far(), signal: controller.signal }).catch((error: unknown) => error)
    const full = await pacer.acquire({ ...ticket, recipient: '15550003333' }, { deadline: far() }).catch((error: unknown) => error)
    expect((full as PacerRefusal).reason).toBe('queue_full')
    controller.abort(new Error('test over'))
    expect(await waiting).toEqual(new Error('test over'))
  })

  it('campaign waiters count against no QUEUE_LIMIT: behind a big campaign a live send still waits, not 503 (CONTRACT.md 15)', async () => {
    const pacer = await pacerFor({ queueLimit: 1 })
    const ticket = (index: number): SendTicket => ({ numberId: 'campaign-number', recipient: `1555000${String(index).padStart(4, '0')}`, mps: 1 })
    const held = await pacer.acquire(ticket(0), { deadline: far() })
    const controller = new AbortController()
    const order: string[] = []
    // each grant answered at once: an unanswered send would hold the number back (the rule above)
    const campaign = Array.from({ length: 20 }, async (_, index) => await pacer.acquire(ticket(100 + index), { deadline: far(), signal: controller.signal, lane: 'campaign' })
      .then(permit => { order.push('campaign'); permit.done() }, (error: unknown) => error))
    await sleep(100)
    // the campaign's twenty waiters leave the one place of the wait list to live traffic
    const live = pacer.acquire(ticket(1), { deadline: far(), signal: controller.signal }).then(permit => { order.push('live'); return permit }, (error: unknown) => error)
    await sleep(100)
    const full = await pacer.acquire(ticket(2), { deadline: far() }).catch((error: unknown) => error)
    expect((full as PacerRefusal).reason).toBe('queue_full')
    held.done()
    // and the live one is granted (at 1/s, after at most the campaign's waiter already at the head of the line)
    const permit = await live
    expect(permit).not.toBeInstanceOf(Error)
    ;(permit as { done(): void }).done()
    // (its place among the campaign's grants is Redis's arrival order across the pollers: not asserted here)
    expect(order).toContain('live')
    controller.abort(new Error('test over'))
    await Promise.all(campaign)
  })

  it('a live send in one process goes ahead of a campaign draining in another: the next slot is the live one\'s (CONTRACT.md 15)', async () => {
    const [draining, serving] = [await pacerFor(), await pacerFor()]
    const mps = 10
    const ticket = (index: number): SendTicket => ({ numberId: 'lanes-number', recipient: `1555100${String(index).padStart(4, '0')}`, mps })
    const controller = new AbortController()
    const order: string[] = []
    const campaign = Array.from({ length: 40 }, async (_, index) => await draining.acquire(ticket(index), { deadline: far(), signal: controller.signal, lane: 'campaign' })
      .then(permit => { order.push('campaign'); permit.done() }, (error: unknown) => error))
    // the campaign holds the number's slots (one slice of 1 every ~100 ms)
    await sleep(350)
    const before = order.length
    const asked = Date.now()
    const permit = await serving.acquire(ticket(1000), { deadline: far() })
    const waited = Date.now() - asked
    order.push('live')
    permit.done()
    // granted at the next slice, not behind the campaign's 40 (4 s at 10/s): at most one campaign grant came in between
    expect(waited).toBeLessThan(400)
    expect(order.indexOf('live') - before).toBeLessThanOrEqual(1)
    controller.abort(new Error('test over'))
    await Promise.all(campaign)
  })

  it('a registration of a waiter that vanished lapses: the campaign goes on', async () => {
    const [draining, serving] = [await pacerFor(), await pacerFor()]
    const mps = 10
    const ticket = (index: number): SendTicket => ({ numberId: 'lapse-number', recipient: `1555200${String(index).padStart(4, '0')}`, mps })
    // a live send aborted while it waited at the head of its line
    const controller = new AbortController()
    const blocker = await draining.acquire(ticket(0), { deadline: far() })
    const gone = serving.acquire(ticket(1), { deadline: far(), signal: controller.signal }).catch((error: unknown) => error)
    await sleep(50)
    controller.abort(new Error('gone'))
    expect(await gone).toEqual(new Error('gone'))
    blocker.done()
    const started = Date.now()
    const permit = await draining.acquire(ticket(2), { deadline: far(), lane: 'campaign' })
    permit.done()
    // a registration left behind would hold the campaign lane for good; one lapses within a slice and
    // half a second (the bound is wide: a loaded machine is slow, a lane held for good never ends)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})
