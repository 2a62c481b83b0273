import { describe, expect, it } from 'vitest'
import { createBatcher } from '../../src/store/batcher.js'

/** A writer whose writes finish when the test says so, recording each batch and how many ran at once. */
function heldWriter<In, Out> (result: (item: In) => Out) {
  const batches: In[][] = []
  const pending: Array<() => void> = []
  let running = 0
  let mostAtOnce = 0
  async function writeMany (items: In[]): Promise<Out[]> {
    batches.push(items)
    mostAtOnce = Math.max(mostAtOnce, ++running)
    await new Promise<void>(resolve => pending.push(resolve))
    running--
    return items.map(result)
  }
  return {
    writeMany,
    batches,
    get mostAtOnce () { return mostAtOnce },
    /** lets the oldest write finish, then lets its callers and the next write start */
    async finishOne () {
      pending.shift()?.()
      await new Promise(resolve => setImmediate(resolve))
    }
  }
}

const settled = async (promise: Promise<unknown>) => await Promise.race([promise.then(() => true, () => true), new Promise(resolve => setImmediate(() => resolve(false)))])

describe('createBatcher: group commit', () => {
  it('writes a lone call at the end of the event loop\'s turn, without waiting for a timer, and settles it only when its write has', async () => {
    const writer = heldWriter((n: number) => n * 10)
    const write = createBatcher(writer.writeMany, { maxBatch: 100 })
    const result = write(1)
    await new Promise(resolve => setImmediate(resolve))
    expect(writer.batches).toEqual([[1]])
    expect(await settled(result)).toBe(false)
    await writer.finishOne()
    expect(await result).toBe(10)
  })

  it('writes calls made in the same tick together', async () => {
    const batches: number[][] = []
    const write = createBatcher(async (items: number[]) => { batches.push(items); return items }, { maxBatch: 100 })
    expect(await Promise.all([1, 2, 3, 4, 5].map(write))).toEqual([1, 2, 3, 4, 5])
    expect(batches).toEqual([[1, 2, 3, 4, 5]])
  })

  it('collects the calls made while a write is in flight into the next write, one write at a time', async () => {
    const writer = heldWriter((n: number) => `r${n}`)
    const write = createBatcher(writer.writeMany, { maxBatch: 100 })
    const first = write(0)
    await new Promise(resolve => setImmediate(resolve))
    const later: Array<Promise<string>> = []
    for (let n = 1; n <= 10; n++) {
      later.push(write(n))
      await new Promise(resolve => setImmediate(resolve))
    }
    expect(writer.batches).toEqual([[0]])
    await writer.finishOne()
    expect(await first).toBe('r0')
    expect(writer.batches).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
    const extra = write(11)
    await writer.finishOne()
    expect(await Promise.all(later)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10'])
    await writer.finishOne()
    expect(await extra).toBe('r11')
    expect(writer.batches).toHaveLength(3)
    expect(writer.mostAtOnce).toBe(1)
  })

  it('gives each caller its own result under concurrency', async () => {
    const write = createBatcher(async (items: string[]) => {
      await new Promise(resolve => setTimeout(resolve, Math.random() * 3))
      return items.map(item => item.toUpperCase())
    }, { maxBatch: 7 })
    const inputs = Array.from({ length: 200 }, (_, n) => `item-${n}`)
    const results = await Promise.all(inputs.map(async (input, n) => {
      await new Promise(resolve => setTimeout(resolve, n % 5))
      return await write(input)
    }))
    expect(results).toEqual(inputs.map(input => input.toUpperCase()))
  })

  it('never writes more than maxBatch items at once', async () => {
    const sizes: number[] = []
    const write = createBatcher(async (items: number[]) => { sizes.push(items.length); return items }, { maxBatch: 100 })
    const inputs = Array.from({ length: 250 }, (_, n) => n)
    expect(await Promise.all(inputs.map(write))).toEqual(inputs)
    expect(sizes).toEqual([100, 100, 50])
  })

  it('writes a failed batch again item by item, so only the bad item\'s caller fails', async () => {
    const batches: string[][] = []
    const write = createBatcher(async (items: string[]) => {
      batches.push(items)
      if (items.includes('bad')) throw new Error('duplicate key')
      return items.map(item => `${item}!`)
    }, { maxBatch: 100 })
    const results = await Promise.allSettled(['a', 'bad', 'c'].map(write))
    expect(results).toEqual([
      { status: 'fulfilled', value: 'a!' },
      { status: 'rejected', reason: new Error('duplicate key') },
      { status: 'fulfilled', value: 'c!' }
    ])
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']])
    expect(await write('d')).toBe('d!')
  })

  it('rejects a lone call with its write\'s error, without writing it twice', async () => {
    let writes = 0
    const write = createBatcher(async (): Promise<number[]> => { writes++; throw new Error('connection lost') }, { maxBatch: 100 })
    await expect(write(1)).rejects.toThrow('connection lost')
    expect(writes).toBe(1)
  })

  it('rejects the callers of a write that returns the wrong number of results', async () => {
    const write = createBatcher(async (items: number[]) => items.slice(1), { maxBatch: 100 })
    const results = await Promise.allSettled([1, 2].map(write))
    expect(results.map(result => result.status)).toEqual(['rejected', 'rejected'])
  })

  it('fails a whole batch at once, unsplit, when a dependency blinked (a lost connection): one write, not one per item', async () => {
    const batches: number[][] = []
    const lost = Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' })
    const write = createBatcher(async (items: number[]) => { batches.push(items); throw lost }, { maxBatch: 100 })
    const results = await Promise.allSettled([1, 2, 3].map(write))
    expect(results.map(result => result.status === 'rejected' && result.reason)).toEqual([lost, lost, lost])
    expect(batches).toEqual([[1, 2, 3]])
  })
})
