import type { LightMyRequestResponse } from 'fastify'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { waitFor } from '../helpers/wait.js'

export const WABA = '102290129340398'
export const NUMBER = '106540352242922'

/** weekly_offer: the default account's MARKETING template (body: two placeholders). */
export const MARKETING = { type: 'template', template: 'weekly_offer', language: 'en_US', components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: '15%' }] }] }
/** hello_world: UTILITY, no placeholders. */
export const UTILITY = { type: 'template', template: 'hello_world', language: 'en_US' }

export async function sendTo (gateway: TestGateway, workspace: ConnectedWorkspace, to: string, fields: Record<string, unknown>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await send(gateway, { to, ...fields }, { authorization: workspace.authorization, headers })
}

export async function api (gateway: TestGateway, workspace: ConnectedWorkspace, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return await gateway.app.inject({
    method,
    url,
    headers: { authorization: workspace.authorization, ...(payload !== undefined && { 'content-type': 'application/json' }) },
    ...(payload !== undefined && { payload: JSON.stringify(payload) })
  })
}

/** M of GET /api/messages.php?id= */
export async function messageOf (gateway: TestGateway, workspace: ConnectedWorkspace, id: string): Promise<Record<string, unknown>> {
  return (await api(gateway, workspace, 'GET', `/api/messages.php?id=${id}`)).json().message
}

export async function suppressionOf (gateway: TestGateway, workspace: ConnectedWorkspace, to: string): Promise<{ reason: string } | undefined> {
  return (await api(gateway, workspace, 'GET', `/api/suppressions.php?to=${to}`)).json().suppressions[0]
}

export async function waitForSuppression (gateway: TestGateway, workspace: ConnectedWorkspace, to: string, present = true) {
  return await waitFor(async () => {
    const found = await suppressionOf(gateway, workspace, to)
    return present ? found : found === undefined ? true : undefined
  }, { timeoutMs: 15_000, what: `suppression of ${to} ${present ? 'added' : 'removed'}` })
}

export function sentTo (gateway: TestGateway, to: string): number {
  return gateway.emulator.sentMessages.filter(message => message.payload.to === to).length
}
