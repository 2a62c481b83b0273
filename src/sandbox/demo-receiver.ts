import { createServer, type IncomingMessage } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { validSignature } from '../webhooks/signature.js'

/**
 * The sandbox's own customer endpoint: it verifies each delivery exactly as docs/api.md shows (the
 * standardwebhooks package and the endpoint's secret) and prints the event's type and webhook-id —
 * ids only, never content. On /relay it is a relay target (docs/relay.md): it checks
 * X-Hub-Signature-256 with the app secret, as Chatwoot and n8n do, and prints what it got.
 */
export async function startDemoReceiver (preferredPort?: number, appSecret?: string): Promise<{ port: number, url: string, relayUrl: string, setSecret(secret: string): void, close(): Promise<void> }> {
  let verifier: Webhook | undefined
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk))
    request.on('end', () => {
      if (request.url === '/relay') return response.writeHead(relayed(request, Buffer.concat(chunks), appSecret)).end()
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
    relayUrl: `http://127.0.0.1:${port}/relay`,
    setSecret (secret) { verifier = new Webhook(secret) },
    async close () { await new Promise(resolve => server.close(resolve)) }
  }
}

/** What a relay target got, printed by ids, fields and sizes (never content); the status it answers. */
function relayed (request: IncomingMessage, raw: Buffer, appSecret: string | undefined): number {
  const id = String(request.headers['x-outbound-relay-delivery'])
  if (appSecret === undefined || !validSignature(raw, request.headers['x-hub-signature-256'], appSecret)) {
    console.log(`[relay] refused ${id}: X-Hub-Signature-256 did not verify with the app secret`)
    return 401
  }
  const body = JSON.parse(raw.toString('utf8')) as { entry?: Array<{ id?: string, changes?: Array<{ field?: string }> }> }
  const fields = [...new Set((body.entry ?? []).flatMap(entry => (entry.changes ?? []).map(change => change.field)))].join(', ')
  console.log(`[relay] verified ${id}: ${raw.length} bytes as Meta sent them, WABA ${body.entry?.map(entry => entry.id).join(', ')}, fields ${fields}`)
  return 200
}
