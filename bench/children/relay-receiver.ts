import { createServer } from 'node:http'
import { serve } from '../child.js'

// Two relay targets (Chatwoot and n8n, say) in a process of their own: each reads a request, notes
// when it came (Date.now(), the parent's clock too) by the index of the status it carries, answers 200.
const WAMID = /wamid\.bench-(\d+)/
const targets = await Promise.all([0, 1].map(async () => {
  const arrivals = new Map<number, number>()
  const ids = new Set<string>()
  let received = 0
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk))
    request.on('end', () => {
      received++
      ids.add(String(request.headers['x-outbound-relay-delivery']))
      const index = WAMID.exec(Buffer.concat(chunks).toString('utf8'))?.[1]
      if (index !== undefined && !arrivals.has(Number(index))) arrivals.set(Number(index), Date.now())
      response.writeHead(200).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/relay`, arrivals, ids, received: () => received }
}))

serve({
  received: () => targets.map(target => target.received()),
  distinct: () => targets.map(target => target.ids.size),
  /** [index, arrival ms] of each target, for the indexes asked */
  arrivals: (from: number, to: number) => targets.map(target => [...target.arrivals].filter(([index]) => index >= from && index < to))
}, { urls: targets.map(target => target.url) })
