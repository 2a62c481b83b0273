import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

/**
 * The sandbox's own customer endpoint: it verifies each delivery exactly as docs/api.md shows (the
 * standardwebhooks package and the endpoint's secret) and prints the event's type and webhook-id —
 * ids only, never content.
 */
export async function startDemoReceiver (preferredPort?: number): Promise<{ port: number, url: string, setSecret(secret: string): void, close(): Promise<void> }> {
  let verifier: Webhook | undefined
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk))
    request.on('end', () => {
      try {
        const event = verifier!.verify(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>) as { type: string }
        console.log(`[events] verified ${event.type} ${String(request.headers['webhook-id'])}`)
        response.writeHead(204).end()
      } catch {
        console.log(`[events] refused a delivery whose signature did not verify (${String(request.headers['webhook-id'])})`)
        response.writeHead(401).end()
      }
    })
  })
  // the port of the last start when it is free, so the endpoint registered for it still points here
  const listen = async (port: number) => await new Promise<boolean>(resolve => {
    const taken = () => resolve(false)
    server.once('error', taken)
    server.listen(port, '127.0.0.1', () => { server.off('error', taken); resolve(true) })
  })
  if (!preferredPort || !await listen(preferredPort)) await listen(0)
  const { port } = server.address() as { port: number }
  return {
    port,
    url: `http://127.0.0.1:${port}/events`,
    setSecret (secret) { verifier = new Webhook(secret) },
    async close () { await new Promise(resolve => server.close(resolve)) }
  }
}
