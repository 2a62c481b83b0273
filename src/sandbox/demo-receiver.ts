import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

/**
 * The sandbox's own customer endpoint: it verifies each delivery exactly as the README shows (the
 * standardwebhooks package and the endpoint's secret) and prints the event's type and webhook-id —
 * ids only, never content.
 */
export async function startDemoReceiver (): Promise<{ url: string, setSecret(secret: string): void, close(): Promise<void> }> {
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
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/events`,
    setSecret (secret) { verifier = new Webhook(secret) },
    async close () { await new Promise(resolve => server.close(resolve)) }
  }
}
