import { Agent, createServer, request } from 'node:http'
import { serve } from '../child.js'

// The yardstick of bench/media.ts: node:http piping an upload's bytes to the emulator's
// POST /{phone-number-id}/media and its answer back, with nothing checked, hashed or stored.
const target = new URL(`${process.env.BENCH_UPSTREAM_MEDIA_URL}`)
const agent = new Agent({ keepAlive: true })
const server = createServer((incoming, outgoing) => {
  const forward = request(target, {
    method: 'POST', agent,
    headers: { 'content-type': incoming.headers['content-type'], 'content-length': incoming.headers['content-length'], authorization: `Bearer ${process.env.BENCH_UPSTREAM_TOKEN}` }
  }, answer => {
    outgoing.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' })
    answer.pipe(outgoing)
  })
  forward.on('error', () => outgoing.destroy())
  incoming.pipe(forward)
})
await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
serve({}, { url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })
