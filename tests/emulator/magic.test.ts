import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MAGIC_RECIPIENTS, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { send, startCallback, statusesOf, subscribe, text, type CallbackServer } from './helpers.js'

describe('emulator: magic recipients', () => {
  let emulator: Emulator
  let callback: CallbackServer
  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    callback = await startCallback(emulator.appSecret)
    await subscribe(emulator, callback.url)
  })
  beforeEach(() => emulator.reset())
  afterAll(async () => {
    await emulator.close()
    await callback.close()
  })

  it('documents every magic number', () => {
    expect(Object.keys(MAGIC_RECIPIENTS)).toHaveLength(11)
    for (const magic of Object.values(MAGIC_RECIPIENTS)) expect(magic.description).not.toBe('')
  })

  it('15550000001 is undeliverable, 15550000002 always fails with 131000', async () => {
    const undeliverable = await send(emulator, text('+15550000001'))
    expect([undeliverable.status, undeliverable.body.error.code]).toEqual([400, 131026])
    const broken = await send(emulator, text('15550000002'))
    expect([broken.status, broken.body.error.code]).toEqual([500, 131000])
    expect((await send(emulator, text('15550000002'))).status).toBe(500)
  })

  it('15550000003 is accepted, then fails by webhook with 131047', async () => {
    const response = await send(emulator, text('15550000003'))
    expect(response.status).toBe(200)
    await emulator.idle()
    const statuses = statusesOf(callback).filter(s => s.id === response.body.messages[0].id)
    expect(statuses.map(s => s.status)).toEqual(['sent', 'failed'])
    expect(statuses[1].errors[0].code).toBe(131047)
  })

  it('15550000004 hangs and 15550000006 resets the connection', async () => {
    await expect(send(emulator, text('15550000004'), { signal: AbortSignal.timeout(200) })).rejects.toThrow()
    await expect(send(emulator, text('15550000006'))).rejects.toThrow(/fetch failed/)
  })

  it('15550000005 is throttled once, 15550000007 unavailable twice with Retry-After', async () => {
    expect((await send(emulator, text('15550000005'))).body.error.code).toBe(130429)
    expect((await send(emulator, text('15550000005'))).status).toBe(200)
    for (let i = 0; i < 2; i++) {
      const unavailable = await send(emulator, text('15550000007'))
      expect([unavailable.status, unavailable.body.error.code, unavailable.headers.get('retry-after')]).toEqual([503, 131016, '1'])
    }
    expect((await send(emulator, text('15550000007'))).status).toBe(200)
    emulator.reset()
    expect((await send(emulator, text('15550000005'))).body.error.code).toBe(130429)
  })

  it('15550000008 answers after two seconds', async () => {
    const started = Date.now()
    expect((await send(emulator, text('15550000008'))).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1990)
  })

  it('gives way to explicit settings', async () => {
    emulator.setFaults({ recipient: '15550000001' }, {})
    expect((await send(emulator, text('15550000001'))).status).toBe(200)
  })
})
