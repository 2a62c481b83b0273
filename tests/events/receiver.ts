import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { Socket } from 'node:net'

/** `raw`: the body's bytes as they came (a relay's are Meta's, byte for byte). */
export interface Received { headers: IncomingHttpHeaders, body: string, raw: Buffer, at: number }

/** What the receiver does with the next request: answer a status, never answer, or drop the connection. */
export type Behaviour = number | 'hang' | 'reset'

/**
 * A real customer endpoint on loopback: records every request; answers 200 unless told otherwise
 * (`plan` is consumed one request at a time, then `otherwise` applies).
 */
export async function startReceiver (options: { plan?: Behaviour[], otherwise?: Behaviour, decide?: (request: Received, seenBefore: number) => Behaviour } = {}) {
  const plan = [...(options.plan ?? [])]
  let otherwise: Behaviour = options.otherwise ?? 200
  const received: Received[] = []
  const seen = new Map<string, number>()
  const sockets = new Set<Socket>()
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk))
    request.on('end', () => {
      const raw = Buffer.concat(chunks)
      const entry = { headers: request.headers, body: raw.toString('utf8'), raw, at: Date.now() }
      const id = String(entry.headers['webhook-id'] ?? entry.headers['x-outbound-relay-delivery'])
      const seenBefore = seen.get(id) ?? 0
      seen.set(id, seenBefore + 1)
      received.push(entry)
      const behaviour = options.decide?.(entry, seenBefore) ?? plan.shift() ?? otherwise
      if (behaviour === 'hang') return
      if (behaviour === 'reset') { request.socket.destroy(); return }
      response.writeHead(behaviour, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  server.on('connection', socket => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)) })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    events: () => received.map(entry => JSON.parse(entry.body) as { type: string, timestamp: string, data: Record<string, unknown> }),
    answer (behaviour: Behaviour) { otherwise = behaviour },
    async close () {
      for (const socket of sockets) socket.destroy()
      await new Promise(resolve => server.close(resolve))
    }
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
