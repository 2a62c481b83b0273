import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { NUMBER, send, text } from './helpers.js'

const recipient = (i: number): string => `1555200${String(i).padStart(4, '0')}`

describe('emulator: per-number throughput', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator() })
  beforeEach(() => emulator.reset())
  afterAll(() => emulator.close())

  it('accepts 80 sends in one second on a STANDARD number and refuses the 81st, until the window slides', async () => {
    // All at once, so that they land inside one second; a machine too busy for that (CI beside other
    // work took 1.2 s once) spreads them over a sliding window, so the burst is tried again.
    let responses: Awaited<ReturnType<typeof send>>[] = []
    for (let attempt = 0; attempt < 3; attempt++) {
      emulator.reset()
      responses = await Promise.all(Array.from({ length: 81 }, (_, i) => send(emulator, text(recipient(i)))))
      const accepted = emulator.sentMessages.map(m => m.at)
      if (Math.max(...accepted) - Math.min(...accepted) < 900) break
      await sleep(1100)
    }
    const accepted = emulator.sentMessages.map(m => m.at)
    expect(Math.max(...accepted) - Math.min(...accepted)).toBeLessThan(1000)
    expect(responses.filter(r => r.status === 200)).toHaveLength(80)
    const refused = responses.filter(r => r.status !== 200)
    expect(refused).toHaveLength(1)
    expect(refused[0].status).toBe(400)
    expect(refused[0].body.error).toMatchObject({
      code: 130429,
      message: '(#130429) Rate limit hit',
      error_data: { messaging_product: 'whatsapp', details: 'Cloud API message throughput has been reached.' }
    })
    expect(emulator.stats).toEqual({ accepted: { [NUMBER]: 80 }, errors: { 130429: 1 } })

    expect((await send(emulator, text(recipient(100)))).status).toBe(400)
    await sleep(Math.max(...emulator.sentMessages.map(m => m.at)) + 1020 - Date.now())
    expect((await send(emulator, text(recipient(101)))).status).toBe(200)
  })

  it('counts numbers apart', async () => {
    await Promise.all(Array.from({ length: 80 }, (_, i) => send(emulator, text(recipient(i)))))
    expect((await send(emulator, text(recipient(90)), {}, '106540352242923')).status).toBe(200)
  })
})

describe('emulator: throughput override and refused sends', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator({ throughputMps: 2 }) })
  afterAll(() => emulator.close())

  it('does not spend capacity on refused sends', async () => {
    for (let i = 0; i < 5; i++) expect((await send(emulator, { messaging_product: 'whatsapp', to: recipient(i) })).status).toBe(400)
    expect((await send(emulator, text(recipient(10)))).status).toBe(200)
    expect((await send(emulator, text(recipient(11)))).status).toBe(200)
    expect((await send(emulator, text(recipient(12)))).body.error.code).toBe(130429)
  })
})

describe('emulator: pair rate limit', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator({ pairRateBurst: 3, pairRateIntervalMs: 1000 }) })
  afterAll(() => emulator.close())

  it('allows a burst per recipient, then refuses with 131056 until a token refills', async () => {
    for (let i = 0; i < 3; i++) expect((await send(emulator, text('15553000001'))).status).toBe(200)
    const refused = await send(emulator, text('15553000001'))
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 131056, message: '(#131056) (Business Account, Consumer Account) pair rate limit hit' })
    expect((await send(emulator, text('15553000002'))).status).toBe(200)
    expect((await send(emulator, text('15553000001'), {}, '106540352242923')).status).toBe(200)
    await sleep(1020)
    expect((await send(emulator, text('15553000001'))).status).toBe(200)
    expect((await send(emulator, text('15553000001'))).body.error.code).toBe(131056)
    expect(emulator.stats.errors[131056]).toBe(2)
  })
})
