import type { FastifyInstance } from 'fastify'
import { emitEvents } from './outbox.js'

/**
 * The dashboard's "send test event": a `webhook.test` event to one endpoint, through the same
 * outbox, signing and retries as every other event. Returns its delivery id.
 */
export async function sendTestEvent (app: Pick<FastifyInstance, 'database' | 'outbox'>, workspaceId: string, endpointId: string): Promise<string> {
  const [id] = await app.database.db.transaction(async tx => await emitEvents(tx, [{
    workspaceId,
    endpointId,
    type: 'webhook.test',
    data: { endpoint_id: endpointId, message: 'A test event from Outbound: this endpoint receives and verifies deliveries.' }
  }]))
  if (id === undefined) throw new Error(`webhook endpoint ${endpointId} not found in this workspace`)
  app.outbox.committed()
  return id
}
