import type { LightMyRequestResponse } from 'fastify'
import type { TestGateway } from '../helpers/gateway.js'

/** GET /api/messages.php with this query, through inject. */
export async function read (gateway: TestGateway, authorization: string, query: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await gateway.app.inject({ method: 'GET', url: '/api/messages.php', query, headers: { authorization } })
}

/** How many message requests the emulator received for this recipient: every attempt, accepted or not. */
export function upstreamRequestsTo (gateway: TestGateway, to: string): number {
  return gateway.emulator.requests.filter(request => request.method === 'POST' && request.path.endsWith('/messages') && (request.body as { to?: string })?.to === to).length
}
