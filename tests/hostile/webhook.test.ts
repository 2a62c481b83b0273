import { connect } from 'node:net'
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { MAX_NESTING } from '../../src/webhooks/delivery.js'
import { useGateway } from '../helpers/use-gateway.js'
import { signature } from '../helpers/webhook.js'
import { inboxDrained } from '../webhooks/helpers.js'
import { rawRequest } from './raw-http.js'

const LIMIT = 65536

/**
 * Writes a request's head and only the first KiB of the body it announces, then waits: an answer
 * that comes back proves the server decided without reading (let alone buffering) the body.
 */
async function answerBeforeBody (url: string, headers: [string, string][], announced: number): Promise<{ status: number, body: string, bodyBytesSent: number }> {
  const { hostname, port } = new URL(url)
  return await new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('the server waited for the body')) }, 10_000)
    socket.on('data', chunk => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('utf8')
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4), bodyBytesSent: 1024 })
    })
    socket.write(`POST /webhooks/whatsapp HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${announced}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`)
    socket.write(Buffer.alloc(1024, 0x20))
  })
}

describe('the webhook route before and after the body', () => {
  const ctx = useGateway({ env: { WEBHOOK_BODY_LIMIT_BYTES: String(LIMIT) } })
  const sign = (body: string) => signature(body, ctx.gateway.emulator.appSecret)

  it('WEBHOOK_BODY_LIMIT_BYTES is 3 MiB unless set', () => {
    expect(loadConfig({}).WEBHOOK_BODY_LIMIT_BYTES).toBe(3 * 1024 * 1024)
  })

  it('answers 401 without X-Hub-Signature-256 (or with one that cannot be a signature) before reading the body', async () => {
    for (const headers of [[], [['x-hub-signature-256', 'sha256=zz']]] as [string, string][][]) {
      const answer = await answerBeforeBody(ctx.gateway.url, headers, 8 * 1024 * 1024)
      expect(answer.status).toBe(401)
      expect(JSON.parse(answer.body)).toMatchObject({ ok: false, code: 'unauthorized' })
    }
  })

  it('answers 413 naming the limit in force for an announced length over it, before reading the body', async () => {
    const answer = await answerBeforeBody(ctx.gateway.url, [['x-hub-signature-256', sign('x')]], 8 * 1024 * 1024)
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body)).toEqual({ ok: false, code: 'payload_too_large', error: `Request body is larger than ${LIMIT} bytes (WEBHOOK_BODY_LIMIT_BYTES)` })
  })

  it('a body without a declared length stops at the limit as it streams in: 413 naming the limit in force', async () => {
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [], padding: 'x'.repeat(LIMIT) })
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
    const response = await rawRequest(ctx.gateway.url, { method: 'POST', target: '/webhooks/whatsapp', headers: [['content-type', 'application/json'], ['transfer-encoding', 'chunked'], ['x-hub-signature-256', sign(body)]], body: chunked })
    expect(response.status).toBe(413)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'payload_too_large', error: `Request body is larger than ${LIMIT} bytes` })
  })

  it('keeps a signed delivery nested deeper than the parser allows aside at once, as poison, never retried', async () => {
    const depth = 20_000
    const deep = '['.repeat(depth) + ']'.repeat(depth)
    const body = `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"1"},"messages":[{"from":"15551234567","id":"wamid.deep","timestamp":"1795000000","type":"text","text":{"body":${deep}}}]}}]}]}`
    expect(body.length).toBeLessThan(LIMIT)
    const response = await rawRequest(ctx.gateway.url, { method: 'POST', target: '/webhooks/whatsapp', headers: [['content-type', 'application/json'], ['content-length', String(body.length)], ['x-hub-signature-256', sign(body)]], body })
    expect(response.status).toBe(200)
    expect((await inboxDrained(ctx.gateway.app)).dead).toBe(0)
    const [kept] = await ctx.gateway.app.keptAside.list({ limit: 1 })
    expect(kept).toMatchObject({ kind: 'rejected', reason: 'nested_too_deep' })
    expect(Buffer.from(JSON.parse(kept.event) as string, 'base64').toString('utf8')).toBe(body)
    // applied (as poison) on the first attempt: no job left to retry
    const left = await ctx.gateway.app.database.db.execute(sql`select count(*)::int as n from jobs where queue = 'webhook-inbox'`)
    expect((left as unknown as { rows?: { n: number }[] }).rows?.[0]?.n ?? (left as unknown as { n: number }[])[0]?.n).toBe(0)
    expect(MAX_NESTING).toBeGreaterThanOrEqual(32)
  })
})
