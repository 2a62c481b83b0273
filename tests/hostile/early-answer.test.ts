import { once } from 'node:events'
import { Agent, request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { Readable } from 'node:stream'
import { request as undiciRequest } from 'undici'
import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { signature } from '../helpers/webhook.js'

const MiB = 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 0x20)
// More than loopback's socket buffers take in at once (~4 MiB here), so that the server must read it.
const BODY = 12 * MiB

interface Outcome { status?: number, body?: Record<string, unknown>, error?: string, written: number }
/** `size` bytes of body (`head`, then spaces), announced in Content-Length or (declared: false) sent chunked */
type Client = (url: string, headers: Record<string, string>, size: number, declared: boolean, head?: Buffer) => Promise<Outcome>

/** The body's chunks: `head`, then spaces up to `size` bytes; `outcome.written` counts what was taken. */
function * chunksOf (outcome: Outcome, size: number, head: Buffer = Buffer.alloc(0)): Generator<Buffer> {
  if (head.length > 0) { outcome.written += head.length; yield head }
  while (outcome.written < size) {
    const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, size - outcome.written))
    outcome.written += chunk.length
    yield chunk
  }
}

const lengthHeader = (size: number, declared: boolean): Record<string, string> => declared ? { 'content-length': String(size) } : {}
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message
const within = async (ms: number) => { await new Promise(resolve => setTimeout(resolve, ms)) }

/**
 * node:http writing its body in 64 KiB chunks as the socket takes them, and reading the answer once
 * the body is written (`readsWhileWriting: false`, as many an SDK does, and as any client does
 * that is busy when the answer and a close arrive) or whenever it comes.
 */
function nodeHttp (readsWhileWriting: boolean): Client {
  return async (url, headers, size, declared, head) => {
    const agent = new Agent({ keepAlive: true })
    const outcome: Outcome = { written: 0 }
    const request = httpRequest(url, { method: 'POST', headers: { ...headers, ...lengthHeader(size, declared) }, agent })
    if (!readsWhileWriting) request.on('socket', socket => socket.pause())
    const over = new Promise<void>(resolve => {
      request.on('error', error => { outcome.error ??= errorCode(error); resolve() })
      request.on('response', response => {
        const chunks: Buffer[] = []
        response.on('data', chunk => chunks.push(chunk))
        response.on('end', () => { outcome.status = response.statusCode; outcome.body = JSON.parse(Buffer.concat(chunks).toString('utf8')); resolve() })
      })
    })
    for (const chunk of chunksOf(outcome, size, head)) {
      if (outcome.error !== undefined || (readsWhileWriting && outcome.status !== undefined)) break
      if (!request.write(chunk)) await Promise.race([new Promise(resolve => request.once('drain', resolve)), over])
      // at the pace of a network rather than of loopback, which would take the body into its buffers at once
      if (readsWhileWriting) await within(2)
    }
    if (outcome.error === undefined) {
      request.end()
      request.socket?.resume()
    }
    await Promise.race([over, within(15_000)])
    agent.destroy()
    return outcome
  }
}

/** undici (the engine of Node's fetch), the body a stream of 64 KiB chunks. */
const undici: Client = async (url, headers, size, declared, head) => {
  const outcome: Outcome = { written: 0 }
  const body = Readable.from((async function * () {
    for (const chunk of chunksOf(outcome, size, head)) {
      yield chunk
      await within(2)
    }
  })())
  try {
    const response = await undiciRequest(url, { method: 'POST', headers: { ...headers, ...lengthHeader(size, declared) }, body, signal: AbortSignal.timeout(15_000) })
    outcome.status = response.statusCode
    outcome.body = await response.body.json() as Record<string, unknown>
  } catch (error) {
    outcome.error = errorCode(error)
  }
  return outcome
}

const MULTIPART = { 'content-type': 'multipart/form-data; boundary=----outbound-early' }

/** A multipart body's start: these fields, then a document's file part whose bytes run on (a PDF of spaces, never closed). */
function filePart (fields: [string, string][]): Buffer {
  return Buffer.from(fields.map(([name, value]) => `------outbound-early\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') +
    '------outbound-early\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n')
}

const CLIENTS: [string, Client, boolean][] = [
  ['node:http reading after writing, Content-Length', nodeHttp(false), true],
  ['node:http reading after writing, chunked', nodeHttp(false), false],
  ['undici, Content-Length', undici, true],
  ['undici, chunked', undici, false]
]

/**
 * An answer given before the request's body has arrived (a 413 on its announced length, a 401 before
 * a webhook's body) reaches a client that is still writing: the server reads the rest and drops it
 * (up to a bound) rather than closing a connection with unread bytes, which resets it and takes the
 * answer with it (CONTRACT.md 12: a 413 without buffering the body; nginx's lingering close).
 */
describe('an early answer reaches a Node.js client still writing the body', () => {
  const ctx = useGateway({
    env: { WEBHOOK_BODY_LIMIT_BYTES: String(MiB), BODY_LIMIT_BYTES: String(256 * 1024), CAMPAIGN_BODY_LIMIT_BYTES: String(MiB), MEDIA_MAX_BYTES: String(MiB), SERVICE_WINDOW_CHECK: 'off' }
  })
  const sign = (body: string) => signature(body, ctx.gateway.emulator.appSecret)
  const api = () => ({ authorization: ctx.workspace.authorization })
  const signed = () => ({ 'content-type': 'application/json', 'x-hub-signature-256': sign('x') })

  describe.each(CLIENTS)('%s', (_name, client, declared) => {
    it.each<[string, string, () => Record<string, string>, Buffer | undefined, number, string]>([
      ['a signed webhook over WEBHOOK_BODY_LIMIT_BYTES', '/webhooks/whatsapp', signed, undefined, 413, `larger than ${MiB} bytes`],
      ['an unsigned webhook', '/webhooks/whatsapp', () => ({ 'content-type': 'application/json' }), undefined, 401, 'X-Hub-Signature-256'],
      ['a JSON send over BODY_LIMIT_BYTES', '/api/messages.php', () => ({ ...api(), 'content-type': 'application/json' }), undefined, 413, `larger than ${256 * 1024} bytes`],
      ['a multipart send whose file is over MEDIA_MAX_BYTES', '/api/messages.php', () => ({ ...api(), ...MULTIPART }), filePart([['to', '15551234567'], ['type', 'document']]), 413, 'larger than'],
      ['a JSON campaign over CAMPAIGN_BODY_LIMIT_BYTES', '/api/campaigns.php', () => ({ ...api(), 'content-type': 'application/json' }), undefined, 413, 'CAMPAIGN_BODY_LIMIT_BYTES'],
      ['a media upload over MEDIA_MAX_BYTES', '/api/media.php', () => ({ ...api(), ...MULTIPART }), filePart([]), 413, 'MEDIA_MAX_BYTES']
    ])('%s: the answer is read', async (_case, path, headers, head, status, named) => {
      const outcome = await client(`${ctx.gateway.url}${path}`, headers(), BODY, declared, head)
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ status, body: { ok: false } })
      expect(outcome.body!.error).toContain(named)
      expect(outcome.error).toBeUndefined()
    })
  })

  it('the connection carries on once the rest is dropped: the next request on it is answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const sockets = new Set<unknown>()
    const post = async (size: number, headers: Record<string, string>) => await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${ctx.gateway.url}/webhooks/whatsapp`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(size), ...headers } }, response => {
        sockets.add(request.socket)
        response.resume()
        response.on('end', () => resolve(response.statusCode!))
      })
      request.on('error', reject)
      request.end(Buffer.alloc(size, 0x20))
    })
    expect(await post(2 * MiB, signed())).toBe(413)
    expect(await post(2, { 'x-hub-signature-256': sign('no') })).toBe(401)
    expect(sockets.size).toBe(1)
    agent.destroy()
  })

  it('drops a bounded amount: a client writing on far past the limit has its answer, then the connection is closed', async () => {
    const { hostname, port } = new URL(ctx.gateway.url)
    const socket = connect(Number(port), hostname)
    let text = ''
    let written = 0
    socket.on('data', chunk => { text += chunk.toString('latin1') })
    socket.on('error', () => {})
    socket.write(`POST /webhooks/whatsapp HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${256 * MiB}\r\nx-hub-signature-256: ${sign('x')}\r\n\r\n`)
    while (!socket.destroyed && written < 256 * MiB) {
      written += CHUNK.length
      if (!socket.write(CHUNK)) await new Promise(resolve => { socket.once('drain', resolve); socket.once('close', resolve) })
    }
    expect(text).toMatch(/^HTTP\/1\.1 413 /)
    expect(socket.destroyed, 'the server read the whole body').toBe(true)
    expect(written).toBeLessThan(64 * MiB)
  })

  it('waits a bounded time: a client that stops writing is closed within seconds of its answer', async () => {
    const { hostname, port } = new URL(ctx.gateway.url)
    const socket = connect(Number(port), hostname)
    let text = ''
    socket.on('data', chunk => { text += chunk.toString('latin1') })
    socket.on('error', () => {})
    socket.write(`POST /webhooks/whatsapp HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${2 * MiB}\r\nx-hub-signature-256: ${sign('x')}\r\n\r\n`)
    socket.write(CHUNK)
    const started = Date.now()
    await Promise.race([once(socket, 'close'), within(15_000)])
    expect(text).toMatch(/^HTTP\/1\.1 413 /)
    expect(socket.destroyed, 'the server still holds the connection').toBe(true)
    expect(Date.now() - started).toBeLessThan(12_000)
    socket.destroy()
  })
})
