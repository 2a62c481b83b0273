import { createServer } from 'node:http'
import { serve } from '../child.js'

// A customer endpoint in a process of its own: reads each request, counts it, answers 200 at once.
let received = 0
const webhookIds = new Set<string>()
const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    received++
    webhookIds.add(String(request.headers['webhook-id']))
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
  })
})
await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address() as { port: number }

serve({
  received: () => received,
  /** distinct webhook-ids: an event delivered twice counts once here */
  distinct: () => webhookIds.size
}, { url: `http://127.0.0.1:${port}/hook` })
