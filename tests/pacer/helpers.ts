import type { LightMyRequestResponse } from 'fastify'
import { request as httpRequest } from 'node:http'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'

export const NUMBER = '106540352242922'
export const OTHER_NUMBER = '106540352242923'

/** A recipient of its own for each index: no two sends share a pair bucket. */
export function recipient (index: number, prefix = '1444'): string {
  return `${prefix}${String(index).padStart(7, '0')}`
}

export async function sendText (gateway: TestGateway, workspace: ConnectedWorkspace, to: string, fields: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return await send(gateway, { to, body: 'Hello', ...fields }, { authorization: workspace.authorization })
}

// the benches count the busiest second the same way
export { busiestWindow } from '../../bench/lib.js'

export function errorCount (gateway: TestGateway, code: number): number {
  return gateway.emulator.stats.errors[code] ?? 0
}

export async function recordOf (gateway: TestGateway, workspaceId: string, to: string) {
  const records = await gateway.app.messages.list(workspaceId, { limit: 1000 })
  return records.find(record => record.recipient === to)
}

/**
 * POST /api/messages.php over a connection of its own, which `leave()` closes as a client that
 * gives up would. (fetch shares a pool with the emulator's webhooks and may leave a connection
 * behind that holds the server's close.)
 */
export function sendAndLeave (gateway: TestGateway, authorization: string, body: Record<string, unknown>): { leave (): void, closed: Promise<void> } {
  const request = httpRequest(`${gateway.url}/api/messages.php`, { method: 'POST', agent: false, headers: { authorization, 'content-type': 'application/json' } })
  const closed = new Promise<void>(resolve => request.once('close', () => resolve()))
  request.on('error', () => {})
  request.end(JSON.stringify(body))
  return { leave: () => request.destroy(), closed }
}
