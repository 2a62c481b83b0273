import { Agent as HttpAgent, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import got from 'got'
import { Pool } from 'undici'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { serve } from '../child.js'

// The least a forwarding gateway can do: no auth, validation, pacing or database; the same upstream
// body and the same answer. BENCH_CLIENT picks the HTTP client: got or undici, under Fastify; `bare`
// is a node:http server forwarding with undici, nothing else (the yardstick).
const upstream = new URL(process.env.GRAPH_API_URL!)
const account = defaultAccount()
const path = `${upstream.pathname.replace(/\/+$/, '')}/${account.phoneNumbers[0].id}/messages`
const headers = { authorization: `Bearer ${account.accessToken}`, 'content-type': 'application/json' }

type Forward = (body: unknown) => Promise<{ messages: { id: string }[] }>

function viaGot (): Forward {
  const http = got.extend({ agent: { http: new HttpAgent({ keepAlive: true }) }, retry: { limit: 0 }, timeout: { request: 15000 }, throwHttpErrors: false, responseType: 'text' })
  return async body => JSON.parse((await http.post(`${upstream.origin}${path}`, { headers, body: JSON.stringify(body) })).body)
}

function viaUndici (): Forward {
  const pool = new Pool(upstream.origin, { connections: 256 })
  return async body => {
    const response = await pool.request({ method: 'POST', path, headers, body: JSON.stringify(body), headersTimeout: 15000, bodyTimeout: 15000 })
    return await response.body.json() as { messages: { id: string }[] }
  }
}

const upstreamBody = (to: string, body: string) => ({ messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body } })

async function fastify (forward: Forward): Promise<string> {
  const app = Fastify()
  app.post('/api/messages.php', async function send (request) {
    const { to, body } = request.body as { to: string, body: string }
    const answer = await forward(upstreamBody(to, body))
    return { ok: true, wamid: answer.messages[0].id, status: 'sent' }
  })
  return await app.listen({ port: 0, host: '127.0.0.1' })
}

async function bare (forward: Forward): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk))
    request.on('end', () => {
      const { to, body } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string, body: string }
      forward(upstreamBody(to, body)).then(answer => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, wamid: answer.messages[0].id, status: 'sent' }))
      }, () => response.writeHead(502).end())
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const client = process.env.BENCH_CLIENT
const url = client === 'bare' ? await bare(viaUndici()) : await fastify(client === 'undici' ? viaUndici() : viaGot())
serve({ rss: () => ({ now: process.memoryUsage().rss }) }, { url, authorization: 'none' })
