import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'drizzle-orm'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { waitFor } from '../helpers/wait.js'

export const RESPOND_ASYNC = { prefer: 'respond-async' }

/** POST /api/messages.php with `Prefer: respond-async`. */
export async function handOver (gateway: TestGateway, workspace: ConnectedWorkspace, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return await send(gateway, { body: 'Hello', ...body }, { authorization: workspace.authorization, headers: RESPOND_ASYNC })
}

/** Waits until the record has left queued/sending, and returns it. */
export async function settled (gateway: TestGateway, id: string, timeoutMs = 15_000) {
  return await waitFor(async () => {
    const record = await gateway.app.messages.get(id)
    return record && !['queued', 'sending'].includes(record.status) ? record : undefined
  }, { timeoutMs, what: `message ${id} to leave the queue` })
}

/** Moves the workspace's connection's registration back in time: the service window's 24-h rule reads it. */
export async function registeredHoursAgo (gateway: TestGateway, workspaceId: string, hours: number): Promise<void> {
  await gateway.app.database.db.execute(sql`update connections set created_at = now() - ${hours} * interval '1 hour' where workspace_id = ${workspaceId}`)
  gateway.app.readCache.clear()
}
