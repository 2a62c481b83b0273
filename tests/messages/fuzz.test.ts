import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { multipart, RECIPIENT } from './helpers.js'

const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 2000)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000)

/** mulberry32: a seeded generator, so a failing run can be replayed with FUZZ_SEED. */
function generator (seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  return { next, int, pick, chance: (p: number) => next() < p }
}

type Random = ReturnType<typeof generator>

const FIELDS = ['to', 'type', 'body', 'text', 'preview_url', 'template', 'template_name', 'language', 'components', 'media_id', 'link', 'caption', 'filename', 'interactive', 'phone_number_id', 'reply_to']
const NASTY_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__', '']
const TYPES = ['text', 'template', 'image', 'document', 'audio', 'video', 'sticker', 'interactive', 'location', '', 'TEXT']
const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16le', 'application/json; charset=latin1',
  'application/json; charset=bogus', 'application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain', 'application/xml',
  'application/octet-stream', 'application/json;;', 'application/', '*/*', 'multipart/form-data; boundary=', 'application/vnd.api+json', ''
]

function randomString (random: Random): string {
  switch (random.int(8)) {
    case 0: return ''
    case 1: return 'x'.repeat(random.int(5000))
    case 2: return String.fromCharCode(...Array.from({ length: random.int(40) }, () => random.int(0xffff)))
    case 3: return random.pick(['15551234567', '+15551234567', '0', 'wamid.abc', 'https://example.com/a.jpg', 'javascript:alert(1)', 'en_US', 'hello_world'])
    case 4: return random.pick(['\u0000', 'a\ud800', '\udc00b', '\ud800\udfff\u202e', '\uffff\ufeff'])
    case 5: return random.pick(NASTY_KEYS)
    default: return Math.random().toString(36).slice(2)
  }
}

function randomValue (random: Random, depth = 0): unknown {
  switch (random.int(depth > 4 ? 5 : 8)) {
    case 0: return null
    case 1: return random.chance(0.5)
    case 2: return random.pick([0, -1, 1e308, 3.14, Number.MAX_SAFE_INTEGER])
    case 3: case 4: return randomString(random)
    case 5: return Array.from({ length: random.int(5) }, () => randomValue(random, depth + 1))
    default: return Object.fromEntries(Array.from({ length: random.int(5) }, () => [random.chance(0.2) ? random.pick(NASTY_KEYS) : random.pick([...FIELDS, 'type', 'text', 'parameters', 'action', 'buttons']), randomValue(random, depth + 1)]))
  }
}

/** A valid message, then perhaps a few fields broken or swapped for noise. */
function nearlyValid (random: Random): Record<string, unknown> {
  const to = random.chance(0.9) ? `1555${100000 + random.int(899999)}` : randomString(random)
  const bases: Record<string, unknown>[] = [
    { to, body: 'Hello' },
    { to, type: 'template', template: 'hello_world' },
    { to, type: 'image', link: 'https://example.com/a.jpg', caption: 'c' },
    { to, type: 'document', media_id: '123', filename: 'a.pdf' },
    { to, type: 'interactive', interactive: { type: 'button', body: { text: 'Pick' }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } } },
    { to, type: 'template', template: 'order_confirmation', language: 'en_US', components: [{ type: 'body', parameters: [{ type: 'text', text: 'X' }] }] }
  ]
  const message = structuredClone(random.pick(bases))
  for (let i = random.int(3); i > 0; i--) message[random.pick(FIELDS)] = randomValue(random)
  if (random.chance(0.1)) message.type = random.pick(TYPES)
  return message
}

function jsonText (random: Random): string | Buffer {
  switch (random.int(10)) {
    case 0: return JSON.stringify(randomValue(random))
    case 1: return '{"to":"15551234567","body":"x"'.slice(0, random.int(30))
    case 2: return `{"to":"15551234567","body":"x","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}`
    case 3: return `{"a":${'['.repeat(random.int(20000))}${']'.repeat(random.int(20000))}}`
    case 4: return Buffer.from(Array.from({ length: random.int(200) }, () => random.int(256)))
    case 5: return Buffer.concat([Buffer.from('{"to":"15551234567","body":"'), Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]), Buffer.from('"}')])
    case 6: return JSON.stringify({ to: RECIPIENT, body: 'y'.repeat(random.chance(0.5) ? 270_000 : 4096 + random.int(3)) })
    default: return JSON.stringify(nearlyValid(random))
  }
}

/** Percent-encodes any string, lone surrogates included (as U+FFFD, like a browser). */
function percent (text: string): string {
  return [...Buffer.from(text, 'utf8')].map(byte => `%${byte.toString(16).padStart(2, '0')}`).join('')
}

function formText (random: Random): string {
  const pairs: string[] = []
  const message = nearlyValid(random)
  for (const [key, value] of Object.entries(message)) {
    pairs.push(`${percent(key)}=${percent(typeof value === 'string' ? value : JSON.stringify(value))}`)
  }
  for (let i = random.int(6); i > 0; i--) {
    pairs.push(random.pick([
      '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'a[__proto__][b]=1', `components${'[0]'.repeat(random.int(15))}=1`,
      `components[${random.int(500)}][type]=body`, '%E0%A4%A=x', '%FF%FE=%C3%28', '[]=1', 'to[]=1&to[]=2', 'interactive=%7B%22type%22%3A', `x=${'%'.repeat(random.int(5))}`,
      'preview_url=maybe', `${random.pick(FIELDS)}[${random.pick(NASTY_KEYS)}]=1`
    ]))
  }
  if (random.chance(0.05)) pairs.push(Array.from({ length: 1100 }, (_, i) => `k${i}=1`).join('&'))
  return pairs.join('&')
}

function request (random: Random, authorization: string): { payload: string | Buffer | undefined, headers: Record<string, string> } {
  const headers: Record<string, string> = {}
  if (random.chance(0.92)) headers.authorization = authorization
  else if (random.chance(0.5)) headers.authorization = random.pick(['Bearer ', 'Bearer x', 'Basic abc', authorization.toLowerCase(), `${authorization}x`, randomString(random)])
  const kind = random.int(10)
  if (kind < 5) return { payload: jsonText(random), headers: { ...headers, 'content-type': random.pick(CONTENT_TYPES.slice(0, 5)) } }
  if (kind < 8) return { payload: formText(random), headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } }
  if (kind < 9) {
    const fields = Object.entries(nearlyValid(random)).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)] as [string, string])
    if (random.chance(0.3)) fields.push([random.pick(NASTY_KEYS), 'x'], [`components[0][${random.pick(NASTY_KEYS)}]`, 'y'])
    const body = multipart(fields, random.chance(0.2) ? { field: 'file', filename: 'a.bin', content: 'x'.repeat(random.int(1000)) } : undefined)
    return { payload: random.chance(0.1) ? body.payload.subarray(0, random.int(body.payload.length)) : body.payload, headers: { ...headers, ...body.headers } }
  }
  const contentType = random.pick(CONTENT_TYPES)
  return { payload: random.chance(0.2) ? undefined : jsonText(random), headers: { ...headers, ...(contentType && { 'content-type': contentType }) } }
}

function assertWellFormed (response: LightMyRequestResponse, description: string): void {
  const where = `${description} → ${response.statusCode} ${response.body.slice(0, 300)}`
  expect(response.headers['content-type'], where).toMatch(/^application\/json/)
  const body = JSON.parse(response.body)
  if (response.statusCode === 200) {
    expect(body, where).toEqual({ ok: true, id: expect.stringMatching(/^msg_/), wamid: expect.stringMatching(/^wamid\./), status: 'sent' })
    return
  }
  expect(body, where).toEqual(expect.objectContaining({ ok: false, error: expect.any(String), code: expect.any(String) }))
  // A template unknown upstream or with the wrong parameter count can only be judged upstream.
  if (response.statusCode === 502) {
    expect([132000, 132001], where).toContain(body.upstream?.code)
    return
  }
  expect(response.statusCode, where).toBeGreaterThanOrEqual(400)
  expect(response.statusCode, where).toBeLessThan(500)
}

describe(`POST /api/messages.php: fuzz (${ROUNDS} requests, FUZZ_SEED=${SEED})`, () => {
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort()
  const ctx = useGateway({
    env: { RATE_LIMIT_MAX: '1000000', BODY_LIMIT_BYTES: '262144' },
    emulator: { throughputMps: 1_000_000, pairRateBurst: 1_000_000 },
    // Status webhooks are beside the point here and cost most of a send's time.
    setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) }
  })

  it('answers every random or malformed body with a well-formed envelope, never a 5xx of its own', async () => {
    const random = generator(SEED)
    const statuses: Record<number, number> = {}
    for (let round = 0; round < ROUNDS; round++) {
      const { payload, headers } = request(random, ctx.workspace.authorization)
      const response = await send(ctx.gateway, payload, { headers })
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
      assertWellFormed(response, `round ${round} (seed ${SEED}) ${headers['content-type']} ${String(payload?.slice(0, 120))}`)
    }
    console.log(`fuzz seed ${SEED}: statuses ${JSON.stringify(statuses)}`)
    expect(statuses[200]).toBeGreaterThan(0)
    expect(statuses[422]).toBeGreaterThan(0)
  }, 120_000)

  it('leaves Object.prototype untouched and the server answering', async () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    const response = await send(ctx.gateway, { to: RECIPIENT, body: 'still here' }, { authorization: ctx.workspace.authorization })
    expect(response.statusCode).toBe(200)
    expect((await ctx.gateway.app.inject('/healthz')).statusCode).toBe(200)
  })
})
