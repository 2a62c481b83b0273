import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { graph, NUMBER, send, text, WABA } from './helpers.js'

const TO = '15557000001'
const OTHER = '15557000002'

describe('emulator: fault injection', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator() })
  beforeEach(() => emulator.reset())
  afterAll(() => emulator.close())

  it('adds fixed and uniform latency', async () => {
    emulator.setFaults({ recipient: TO }, { latencyMs: 150 })
    let started = Date.now()
    expect((await send(emulator, text(TO))).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(145)
    emulator.setFaults('global', { latencyMs: { min: 60, max: 80 } })
    started = Date.now()
    await send(emulator, text(OTHER))
    expect(Date.now() - started).toBeGreaterThanOrEqual(55)
  })

  it('hangs: the request is read and never answered', async () => {
    emulator.setFaults({ phoneNumberId: NUMBER }, { hang: true })
    const outcome = send(emulator, text(TO), { signal: AbortSignal.timeout(300) })
    await expect(outcome).rejects.toThrow(/abort|timeout/i)
    expect(emulator.requests.at(-1)?.body).toMatchObject({ to: TO })
    expect(emulator.sentMessages).toHaveLength(0)
  })

  it('resets the connection without an answer', async () => {
    emulator.setFaults({ recipient: TO }, { reset: true })
    await expect(send(emulator, text(TO))).rejects.toThrow(/fetch failed/)
    expect(emulator.requests).toHaveLength(1)
    expect((await send(emulator, text(OTHER))).status).toBe(200)
  })

  it('answers a transient error the given number of times, then succeeds', async () => {
    emulator.setFaults({ recipient: TO }, { transient: { code: 131016, times: 2 } })
    const first = await send(emulator, text(TO))
    expect(first.status).toBe(503)
    expect(first.body.error).toMatchObject({ code: 131016, message: '(#131016) Service unavailable' })
    expect((await send(emulator, text(TO))).body.error.code).toBe(131016)
    expect((await send(emulator, text(TO))).status).toBe(200)
    expect(emulator.stats.errors[131016]).toBe(2)
  })

  it('answers a permanent error every time, with an optional HTTP status', async () => {
    emulator.setFaults({ recipient: TO }, { permanent: { code: 131026 } })
    emulator.setFaults({ recipient: OTHER }, { permanent: { code: 130429, httpStatus: 429 } })
    for (let i = 0; i < 3; i++) expect((await send(emulator, text(TO))).body.error.code).toBe(131026)
    const throttled = await send(emulator, text(OTHER))
    expect([throttled.status, throttled.body.error.code]).toEqual([429, 130429])
  })

  it('fails at the given error rate with 131000 or 2', async () => {
    emulator.setFaults('global', { errorRate: 1 })
    const responses = await Promise.all(Array.from({ length: 10 }, () => send(emulator, text(TO))))
    for (const response of responses) {
      expect([500, 503]).toContain(response.status)
      expect([131000, 2]).toContain(response.body.error.code)
    }
    emulator.setFaults('global', { errorRate: 0 })
    expect((await send(emulator, text(TO))).status).toBe(200)
  })

  it('adds Retry-After to injected errors', async () => {
    emulator.setFaults({ recipient: TO }, { transient: { code: 131056 }, retryAfter: 7 })
    const response = await send(emulator, text(TO))
    expect(response.headers.get('retry-after')).toBe('7')
    expect(response.body.error.code).toBe(131056)
    expect((await send(emulator, text(TO))).headers.get('retry-after')).toBeNull()
  })

  it('lets a recipient win over a number and a number over global', async () => {
    emulator.setFaults('global', { permanent: { code: 131000 } })
    emulator.setFaults({ phoneNumberId: NUMBER }, { permanent: { code: 131057 } })
    emulator.setFaults({ recipient: `+${TO}` }, { permanent: { code: 131047 } })
    expect((await send(emulator, text(TO))).body.error.code).toBe(131047)
    expect((await send(emulator, text(OTHER))).body.error.code).toBe(131057)
    expect((await send(emulator, text(OTHER), {}, '106540352242923')).body.error.code).toBe(131000)
    expect((await graph(emulator, 'GET', `/${WABA}/phone_numbers`)).body.error.code).toBe(131000)
    emulator.clearFaults()
    expect((await send(emulator, text(TO))).status).toBe(200)
  })

  it('applies faults on management calls too', async () => {
    emulator.setFaults({ phoneNumberId: NUMBER }, { permanent: { code: 190 } })
    const response = await graph(emulator, 'GET', `/${NUMBER}`)
    expect([response.status, response.body.error.code]).toEqual([401, 190])
  })
})

describe('emulator: closing with hung requests', () => {
  it('closes promptly and the hung client sees its connection end', async () => {
    const emulator = await startEmulator()
    emulator.setFaults('global', { hang: true })
    const hung = send(emulator, text(TO)).then(() => 'answered', () => 'closed')
    await new Promise(resolve => setTimeout(resolve, 50))
    const started = Date.now()
    await emulator.close()
    expect(Date.now() - started).toBeLessThan(1000)
    expect(await hung).toBe('closed')
  })
})
