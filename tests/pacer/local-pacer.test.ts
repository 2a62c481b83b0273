import { afterEach, describe, expect, it } from 'vitest'
import { createLocalPacer } from '../../src/pacer/local-pacer.js'
import { PacerRefusal, type Pacer } from '../../src/pacer/types.js'
import { busiestWindow } from './helpers.js'

const far = () => Date.now() + 60_000

describe('pacer: the in-process pacer on its own', () => {
  let pacer: Pacer
  afterEach(() => pacer?.close())

  async function grants (count: number, mps: number): Promise<number[]> {
    const times: number[] = []
    await Promise.all(Array.from({ length: count }, async (_, index) => {
      const permit = await pacer.acquire({ numberId: 'n', recipient: `r${index}`, mps }, { deadline: far() })
      times.push(performance.now())
      permit.done()
    }))
    return times
  }

  it('grants a number no more than its throughput in any second, and at least 95% of it', async () => {
    pacer = createLocalPacer({ queueLimit: 10_000, pairRate: { burst: 45, intervalMs: 6000 } })
    const times = await grants(240, 80)
    expect(busiestWindow(times)).toBeLessThanOrEqual(80)
    // the first slice (8) goes at once; the other 232 are paced
    const rate = (240 - 8) / ((Math.max(...times) - Math.min(...times)) / 1000)
    expect(rate).toBeGreaterThanOrEqual(0.95 * 80)
    expect(rate).toBeLessThanOrEqual(80)
  })

  it('refuses past the queue limit with a Retry-After from the backlog', async () => {
    pacer = createLocalPacer({ queueLimit: 3, pairRate: { burst: 45, intervalMs: 6000 } })
    await pacer.acquire({ numberId: 'n', recipient: 'first', mps: 1 }, { deadline: far() })
    const controller = new AbortController()
    const waits = Array.from({ length: 3 }, (_, index) => pacer.acquire({ numberId: 'n', recipient: `r${index}`, mps: 1 }, { deadline: far(), signal: controller.signal }).catch((error: unknown) => error))
    const refusal = await pacer.acquire({ numberId: 'n', recipient: 'late', mps: 1 }, { deadline: far() }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(PacerRefusal)
    expect(refusal).toMatchObject({ reason: 'queue_full', retryAfterMs: 3000 })
    const reason = new Error('test over')
    controller.abort(reason)
    expect(await Promise.all(waits)).toEqual([reason, reason, reason])
  })

  it('holds a number\'s sends back while earlier ones may still be counted upstream: until a second after their answer', async () => {
    pacer = createLocalPacer({ queueLimit: 100, pairRate: { burst: 45, intervalMs: 6000 } })
    const first = await Promise.all([0, 1].map(async index => await pacer.acquire({ numberId: 'n', recipient: `r${index}`, mps: 2 }, { deadline: far() })))
    // both unanswered for 700 ms: whenever they arrived, the upstream counts them for a second from then
    await new Promise(resolve => setTimeout(resolve, 700))
    first.forEach(permit => permit.done())
    const answered = performance.now()
    await pacer.acquire({ numberId: 'n', recipient: 'r2', mps: 2 }, { deadline: far() })
    expect(performance.now() - answered).toBeGreaterThanOrEqual(990)
  })

  it('refuses at once a wait known to outlast the deadline: the pair token, then the number\'s backlog', async () => {
    pacer = createLocalPacer({ queueLimit: 100, pairRate: { burst: 1, intervalMs: 10_000 } })
    await pacer.acquire({ numberId: 'n', recipient: 'r', mps: 100 }, { deadline: far() })
    const started = Date.now()
    const refusal = await pacer.acquire({ numberId: 'n', recipient: 'r', mps: 100 }, { deadline: Date.now() + 5000 }).catch((error: unknown) => error)
    expect(refusal).toMatchObject({ reason: 'deadline' })
    expect((refusal as PacerRefusal).retryAfterMs).toBeGreaterThan(4000)
    expect(Date.now() - started).toBeLessThan(100)
    // the refused message gave its claim back: the next one waits for one token, not two
    const again = await pacer.acquire({ numberId: 'n', recipient: 'r', mps: 100 }, { deadline: Date.now() + 15_000, signal: AbortSignal.timeout(50) }).catch((error: unknown) => error)
    expect(again).toBeInstanceOf(DOMException)
  })

  it('a wait aborted by its owner leaves the queue with the owner\'s reason, nothing else is held', async () => {
    pacer = createLocalPacer({ queueLimit: 100, pairRate: { burst: 45, intervalMs: 6000 } })
    await pacer.acquire({ numberId: 'n', recipient: 'a', mps: 1 }, { deadline: far() })
    const reason = new Error('client gone')
    const controller = new AbortController()
    const waiting = pacer.acquire({ numberId: 'n', recipient: 'b', mps: 1 }, { deadline: far(), signal: controller.signal }).catch((error: unknown) => error)
    controller.abort(reason)
    expect(await waiting).toBe(reason)
  })

  it('a pair whose last send is unanswered waits for the answer, then for its refill, holding no number slot', async () => {
    pacer = createLocalPacer({ queueLimit: 100, pairRate: { burst: 1, intervalMs: 100 } })
    const first = await pacer.acquire({ numberId: 'n', recipient: 'r', mps: 1000 }, { deadline: far() })
    let second = 0
    const waiting = pacer.acquire({ numberId: 'n', recipient: 'r', mps: 1000 }, { deadline: far() }).then(permit => { second = performance.now(); return permit })
    await new Promise(resolve => setTimeout(resolve, 400))
    expect(second).toBe(0)
    // meanwhile other recipients of the number go at once
    const other = performance.now()
    ;(await pacer.acquire({ numberId: 'n', recipient: 'other', mps: 1000 }, { deadline: far() })).done()
    expect(performance.now() - other).toBeLessThan(150)
    const answered = performance.now()
    first.done()
    ;(await waiting).done()
    expect(second - answered).toBeGreaterThanOrEqual(100)
  })
})
