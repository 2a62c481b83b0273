import { createHmac, timingSafeEqual } from 'node:crypto'
import Fastify from 'fastify'
import { serve } from '../child.js'

// The least a webhook receiver can do: keep the raw bytes, check the signature in constant time,
// parse the JSON, answer 200. No database.
const secret = process.env.APP_SECRET!
const app = Fastify()
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, raw, done) => done(null, raw))
app.post('/webhooks/whatsapp', async function receive (request, reply) {
  const raw = request.body as Buffer
  const presented = Buffer.from(String(request.headers['x-hub-signature-256'] ?? '').replace(/^sha256=/, ''), 'hex')
  const expected = createHmac('sha256', secret).update(raw).digest()
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return await reply.code(401).send({ ok: false })
  JSON.parse(raw.toString('utf8'))
  return { ok: true }
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
serve({ backlog: () => 0, delivered: () => 0 }, { url })
