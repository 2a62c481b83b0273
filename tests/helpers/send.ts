import type { LightMyRequestResponse } from 'fastify'
import type { TestGateway } from './gateway.js'
import { postOwn, type Answer } from './http.js'

export interface SendOptions {
  authorization?: string
  headers?: Record<string, string>
  remoteAddress?: string
}

/** POST /api/messages.php through inject: an object is sent as JSON, a string or Buffer as is. */
export async function send (gateway: TestGateway, payload: unknown, options: SendOptions = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...(options.authorization && { authorization: options.authorization }), ...options.headers }
  const raw = typeof payload === 'string' || Buffer.isBuffer(payload)
  if (!raw && payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json'
  return await gateway.app.inject({
    method: 'POST',
    url: '/api/messages.php',
    headers,
    ...(options.remoteAddress && { remoteAddress: options.remoteAddress }),
    ...(payload !== undefined && { payload: raw ? payload as string | Buffer : JSON.stringify(payload) })
  })
}

export interface FilePart { bytes: Buffer, filename?: string, type?: string }
export type Part = [string, string | FilePart]

/** A multipart body of these parts, in their order. */
export function form (parts: Part[]): FormData {
  const body = new FormData()
  for (const [name, value] of parts) {
    if (typeof value === 'string') body.append(name, value)
    else body.append(name, new Blob([value.bytes], value.type === undefined ? {} : { type: value.type }), value.filename ?? 'upload')
  }
  return body
}

/** POST /api/messages.php as multipart over HTTP (a file part streams through the server as it would from a client). */
export async function sendParts (gateway: TestGateway, authorization: string, parts: Part[], headers: Record<string, string> = {}): Promise<{ status: number, headers: Headers, text: string, body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}/api/messages.php`, { method: 'POST', headers: { authorization, ...headers }, body: form(parts) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as Record<string, unknown> }
}

/** POST /api/messages.php as JSON to the server listening at `url` (a spawned one), on a connection of its own: status 0 when the connection broke. */
export async function sendOver (url: string, authorization: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  return await postOwn(`${url}/api/messages.php`, { authorization, 'content-type': 'application/json', ...headers }, JSON.stringify(body))
}
