import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Emulator } from '../../src/sandbox/emulator/index.js'
import { signature } from '../helpers/webhook.js'

export const WABA = '102290129340398'
export const TOKEN = 'sandbox-access-token'
export const NUMBER = '106540352242922'

// response bodies are asserted field by field
export type Body = any

export interface GraphResponse { status: number, headers: Headers, body: Body }

export interface GraphCall { token?: string | null, body?: unknown, signal?: AbortSignal }

export async function graph (emulator: Emulator, method: string, path: string, call: GraphCall = {}): Promise<GraphResponse> {
  const url = path.startsWith('http') ? path : `${emulator.url}${path}`
  const headers: Record<string, string> = {}
  const token = call.token === undefined ? TOKEN : call.token
  if (token !== null) headers.authorization = `Bearer ${token}`
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(url, {
    method,
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
    signal: call.signal
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) }
}

export function send (emulator: Emulator, payload: unknown, call: GraphCall = {}, number = NUMBER): Promise<GraphResponse> {
  return graph(emulator, 'POST', `/${number}/messages`, { ...call, body: payload })
}

export function text (to: string, body = 'Hello'): Record<string, unknown> {
  return { messaging_product: 'whatsapp', to, type: 'text', text: { body } }
}

export interface ReceivedWebhook { headers: IncomingHttpHeaders, raw: string, body: Body, signatureValid: boolean }

export interface CallbackServer {
  url: string
  received: ReceivedWebhook[]
  handshakes: URLSearchParams[]
  /** the status answered to the n-th POST (0-based); 200 by default */
  answer: (index: number) => number
  close: () => Promise<void>
}

/** A real loopback webhook receiver that answers the verification handshake and checks signatures. */
export async function startCallback (appSecret: string, verifyToken = 'verify-me'): Promise<CallbackServer> {
  const received: ReceivedWebhook[] = []
  const handshakes: URLSearchParams[] = []
  const server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams
    if (request.method === 'GET') {
      handshakes.push(query)
      const ok = query.get('hub.mode') === 'subscribe' && query.get('hub.verify_token') === verifyToken
      response.writeHead(ok ? 200 : 403, { 'content-type': 'text/plain' }).end(ok ? query.get('hub.challenge') : 'forbidden')
      return
    }
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk))
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString()
      const index = received.length
      received.push({ headers: request.headers, raw, body: JSON.parse(raw), signatureValid: validSignature(raw, request.headers['x-hub-signature-256'], appSecret) })
      response.writeHead(callback.answer(index)).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const callback: CallbackServer = {
    url: `http://127.0.0.1:${port}/webhooks/whatsapp`,
    received,
    handshakes,
    answer: () => 200,
    close: () => new Promise(resolve => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
  return callback
}

function validSignature (raw: string, header: string | string[] | undefined, secret: string): boolean {
  return header === signature(raw, secret)
}

export async function subscribe (emulator: Emulator, callbackUrl: string, verifyToken = 'verify-me'): Promise<GraphResponse> {
  return graph(emulator, 'POST', `/${WABA}/subscribed_apps`, { body: { override_callback_uri: callbackUrl, verify_token: verifyToken } })
}

/** The `statuses[0]` of each received status webhook. */
export function statusesOf (callback: CallbackServer): Body[] {
  return callback.received.map(hook => hook.body.entry[0].changes[0].value.statuses?.[0]).filter(status => status !== undefined)
}
