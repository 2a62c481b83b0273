import { Agent as HttpAgent } from 'node:http'
import Fastify from 'fastify'
import got from 'got'
import { Pool } from 'undici'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { serve } from '../child.js'

// The least a forwarding gateway can do: no auth, validation, pacing or database; the same upstream
// body and the same answer. BENCH_CLIENT picks the HTTP client: got (as src/upstream/client.ts) or undici.
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

const forward = process.env.BENCH_CLIENT === 'undici' ? viaUndici() : viaGot()
const app = Fastify()
app.post('/api/messages.php', async function send (request) {
  const { to, body } = request.body as { to: string, body: string }
  const answer = await forward({ messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body } })
  return { ok: true, wamid: answer.messages[0].id, status: 'sent' }
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
serve({ rss: () => ({ now: process.memoryUsage().rss }) }, { url, authorization: 'none' })
