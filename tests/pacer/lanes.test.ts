import { afterEach, describe, expect, it } from 'vitest'
import { createLocalPacer } from '../../src/pacer/local-pacer.js'
import type { Pacer, Permit } from '../../src/pacer/types.js'

const far = () => Date.now() + 60_000

/** CONTRACT.md 9: a live send takes its number's next free slot ahead of every queued one. */
describe('pacer: the live lane ahead of the queued lane', () => {
  let pacer: Pacer
  afterEach(() => pacer?.close())

  it('a live send waiting behind 20 queued ones is granted next', async () => {
    pacer = createLocalPacer({ queueLimit: 10_000, pairRate: { burst: 45, intervalMs: 6000 } })
    const order: string[] = []
    const take = async (name: string, lane: 'live' | 'queued') => {
      const permit = await pacer.acquire({ numberId: 'n', recipient: name, mps: 20 }, { deadline: far(), lane })
      order.push(name)
      permit.done()
    }
    const queued = Array.from({ length: 20 }, async (_, index) => await take(`q${index}`, 'queued'))
    await new Promise(resolve => setTimeout(resolve, 30))
    const live = take('live', 'live')
    await Promise.all([...queued, live])
    // the first slice (2 at 20/s) went at once; the live send takes the next one
    expect(order.indexOf('live')).toBeLessThanOrEqual(4)
    expect(order.slice(-1)).not.toEqual(['live'])
  })

  it('when earlier sends hold the arrival window, the live send gets the first room it frees', async () => {
    pacer = createLocalPacer({ queueLimit: 10_000, pairRate: { burst: 45, intervalMs: 6000 } })
    const mps = 4
    const held: Permit[] = []
    for (let index = 0; index < mps; index++) held.push(await pacer.acquire({ numberId: 'n', recipient: `h${index}`, mps }, { deadline: far(), lane: 'queued' }))
    const order: string[] = []
    const waits = Array.from({ length: 3 }, async (_, index) => {
      const permit = await pacer.acquire({ numberId: 'n', recipient: `q${index}`, mps }, { deadline: far(), lane: 'queued' })
      order.push(`q${index}`)
      permit.done()
    })
    await new Promise(resolve => setTimeout(resolve, 400))
    const live = (async () => {
      const permit = await pacer.acquire({ numberId: 'n', recipient: 'live', mps }, { deadline: far() })
      order.push('live')
      permit.done()
    })()
    for (const permit of held) permit.done()
    await Promise.all([...waits, live])
    expect(order[0]).toBe('live')
  })
})
