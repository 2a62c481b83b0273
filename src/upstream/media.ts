import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { Agent, request } from 'undici'
import { answerOf, rejection } from './answer.js'
import { UpstreamError } from './errors.js'

/** A file going up: its accepted type, a name, its bytes, and their count when known (else sent chunked). */
export interface UploadFile { type: string, filename: string, bytes: AsyncIterable<Buffer>, size?: number }

/** `GET /{media-id}` (upstream-facts.md 1.4): `sha256` in hex; the URL is valid 5 minutes, with the bearer token. */
export interface MediaNode { id: string, url: string, mime_type?: string, sha256?: string, file_size?: number | string }

export interface MediaBytes { stream: Readable, contentType?: string, contentLength?: number }

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
const MAX_REDIRECTS = 3

/**
 * The upstream's media endpoints over undici, bodies streamed both ways. Timeouts are idle times
 * (UPSTREAM_TIMEOUT_MS without a byte), not a bound on the whole call: 100 MB take a while.
 */
export function createMediaCalls (options: { baseUrl: string, timeoutMs: number }) {
  const agent = new Agent({ connections: 64, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, connect: { timeout: Math.min(options.timeoutMs, 10_000) } })
  const at = (path: string) => `${options.baseUrl}/${path}`

  async function call (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: { iterable: AsyncIterable<Buffer>, headers: Record<string, string> }): Promise<unknown> {
    let bodyError: unknown
    const guarded = body && (async function * () { try { yield * body.iterable } catch (error) { bodyError = error; throw error } })()
    try {
      const response = await request(url, { dispatcher: agent, method, headers: { authorization: `Bearer ${token}`, ...body?.headers }, body: guarded && Readable.from(guarded, { objectMode: false }) })
      return answerOf(response.statusCode, await response.body.text(), header(response.headers['retry-after']))
    } catch (error) {
      // a refusal of our own (the file broke a rule while it streamed) is the answer, not the upstream's
      throw bodyError ?? (error instanceof UpstreamError ? error : classify(error))
    }
  }

  return {
    /** `POST /{phone-number-id}/media`, multipart `messaging_product`, `type`, `file`: the new media id. */
    async upload (phoneNumberId: string, token: string, file: UploadFile): Promise<string> {
      const boundary = `----outbound${randomBytes(12).toString('hex')}`
      const head = Buffer.from(field(boundary, 'messaging_product', 'whatsapp') + field(boundary, 'type', file.type) +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename.replace(/[^\w.-]/g, '_').slice(-100) || 'file'}"\r\nContent-Type: ${file.type}\r\n\r\n`)
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
      const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` }
      if (file.size !== undefined) headers['content-length'] = String(head.length + file.size + tail.length)
      const answer = await call('POST', at(`${encodeURIComponent(phoneNumberId)}/media`), token, { iterable: framed(head, file.bytes, tail), headers }) as { id?: unknown }
      if (typeof answer.id !== 'string' || !/^[\w.-]{1,128}$/.test(answer.id)) throw new UpstreamError('lost', 'The upstream accepted the upload without a usable media id')
      return answer.id
    },

    async node (mediaId: string, token: string, phoneNumberId?: string): Promise<MediaNode> {
      const query = phoneNumberId ? `?phone_number_id=${encodeURIComponent(phoneNumberId)}` : ''
      const node = await call('GET', at(`${encodeURIComponent(mediaId)}${query}`), token) as Partial<MediaNode>
      if (typeof node.url !== 'string' || !/^https?:\/\//i.test(node.url)) throw new UpstreamError('lost', 'The upstream\'s media node has no download URL')
      return { ...node, id: mediaId, url: node.url }
    },

    /**
     * The bytes behind a node's URL, fetched as handed out (the upstream picks host and scheme; no
     * SSRF rule applies to it). Redirects: within the URL's origin with the token; to another origin
     * only over https and without it (the token never leaves the origin the upstream named); at most 3.
     */
    async download (url: string, token: string): Promise<MediaBytes> {
      let target = new URL(url)
      const origin = target.origin
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const sameOrigin = target.origin === origin
        let response: Awaited<ReturnType<typeof request>>
        try {
          response = await request(target, { dispatcher: agent, method: 'GET', headers: sameOrigin ? { authorization: `Bearer ${token}` } : {} })
        } catch (error) {
          throw classify(error)
        }
        const location = header(response.headers.location)
        if (response.statusCode >= 300 && response.statusCode < 400 && location) {
          await response.body.dump()
          target = new URL(location, target)
          if (target.origin !== origin && target.protocol !== 'https:') throw new UpstreamError('rejected', `Refusing a media redirect to ${target.protocol}//${target.host}: another origin must be https`)
          continue
        }
        if (response.statusCode < 200 || response.statusCode >= 300) {
          throw rejection(response.statusCode, await response.body.json().catch(() => undefined), header(response.headers['retry-after']))
        }
        const length = Number(header(response.headers['content-length']))
        return { stream: response.body, contentType: header(response.headers['content-type']), contentLength: Number.isSafeInteger(length) ? length : undefined }
      }
      throw new UpstreamError('rejected', `The media URL redirected more than ${MAX_REDIRECTS} times`)
    },

    async delete (mediaId: string, token: string): Promise<void> {
      await call('DELETE', at(encodeURIComponent(mediaId)), token)
    },

    async close (): Promise<void> {
      await agent.close()
    }
  }
}

function field (boundary: string, name: string, value: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
}

async function * framed (head: Buffer, bytes: AsyncIterable<Buffer>, tail: Buffer): AsyncGenerator<Buffer> {
  yield head
  yield * bytes
  yield tail
}

function header (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function classify (error: unknown): UpstreamError {
  const code = (error as { code?: string }).code ?? ''
  if (UNREACHABLE.has(code)) return new UpstreamError('unreachable', `Could not reach the upstream (${code})`)
  if (TIMEOUTS.has(code)) return new UpstreamError('timeout', 'The upstream did not answer in time')
  return new UpstreamError('lost', `The connection to the upstream broke (${code || (error as Error)?.message})`)
}
