import { performance } from 'node:perf_hooks'
import { Agent, request } from 'undici'
import { signedHeaders, signingKey } from '../../src/events/sign.js'
import { load } from '../lib.js'
import { serve } from '../child.js'

// The least an outbox can do: sign and POST each event to the receiver, as many in flight as the
// gateway's outbox and with the same agent settings; no database. The yardstick of one request per
// event (Standard Webhooks).
const agent = new Agent({ connections: 64 })
const key = signingKey('whsec_' + Buffer.alloc(24, 7).toString('base64'))

serve({
  async send (url: string, count: number, concurrency: number) {
    const started = performance.now()
    await load(count, concurrency, async index => {
      const body = JSON.stringify({ type: 'message.read', timestamp: new Date().toISOString(), data: { index } })
      const response = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', 'user-agent': 'Outbound-Webhooks/1', ...signedHeaders(key, `whmsg_${index}`, body) }, body })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`)
    })
    return count / ((performance.now() - started) / 1000)
  }
}, {})
