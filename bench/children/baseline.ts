import { Agent as HttpAgent, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import got from 'got'
import { Pool } from 'undici'
import { serve } from '../child.js'
import { messagesEndpoint, textMessage } from '../upstream-send.js'

// The least a forwarding gateway can do: no auth, validation, pacing or database; the same upstream
// body and the same answer. BENCH_CLIENT picks the HTTP client: got or undici, under Fastify; `bare`
// is a node:http server forwarding with undici, nothing else (the yardstick).
const { origin, path, headers } = messagesEndpoint(process.env.GRAPH_API_URL!)

type Forward = (body: unknown) => Promise<{ messages: { id: string }[] }>

function viaGot (): Forward {
  const http = got.extend({ agent: { http: new HttpAgent({ keepAlive: true }) }, retry: { limit: 0 }, timeout: { request: 15000 }, throwHttpErrors: false, responseType: 'text' })
  return async body => JSON.parse((await http.post(`${origin}${path}`, { headers, body: JSON.stringify(body) })).body)
}

function viaUndici (): Forward {
  const pool = new Pool(origin, { connections: 256 })
  return async body => {
    const response = await pool.request({ method: 'POST', path, headers, body: JSON.stringify(body), headersTimeout: 15000, bodyTimeout: 15000 })
    return await response.body.json() as { messages: { id: string }[] }
  }
}

async function fastify (forward: Forward): Promise<string> {
  const app = Fastify()
  app.post('/api/messages.php', async function send (request) {
    const { to, body } = request.body as { to: string, body: string }
    const answer = await forward(textMessage(to, body))
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
      forward(textMessage(to, body)).then(answer => {
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
