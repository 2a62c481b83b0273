import type { LightMyRequestResponse } from 'fastify'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { multipart } from '../messages/helpers.js'

export const URL = '/api/campaigns.php'

export interface Counts { total: number, rejected: number, skipped: number, waiting: number, queued: number, sent: number, delivered: number, read: number, failed: number, cancelled: number }
export interface C { id: string, name: string, status: string, template: string, language: string, phone_number_id: string, send_at: string, created_at: string, completed_at: string | null, counts: Counts }

/** Numbers 1777000000n… (not the emulator's magic 1555000000n): distinct recipients the emulator accepts. */
export function recipients (count: number, from = 0, variables?: (index: number) => unknown): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, index) => ({ to: `+1777${String(from + index).padStart(7, '0')}`, ...(variables && { variables: variables(from + index) }) }))
}

export async function createCampaign (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return await gateway.app.inject({ method: 'POST', url: URL, headers: { authorization: workspace.authorization, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'Spring sale', ...body }) })
}

export async function uploadCampaign (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, fields: [string, string][], csv: string): Promise<LightMyRequestResponse> {
  const body = multipart(fields, { field: 'file', filename: 'recipients.csv', content: csv })
  return await gateway.app.inject({ method: 'POST', url: URL, headers: { authorization: workspace.authorization, ...body.headers }, payload: body.payload })
}

export async function act (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, id: string, action: string): Promise<LightMyRequestResponse> {
  return await gateway.app.inject({ method: 'POST', url: `${URL}?id=${id}&action=${action}`, headers: { authorization: workspace.authorization } })
}

export async function readCampaign (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, id: string): Promise<C> {
  const response = await gateway.app.inject({ method: 'GET', url: `${URL}?id=${id}`, headers: { authorization: workspace.authorization } })
  if (response.statusCode !== 200) throw new Error(`GET campaign: ${response.statusCode} ${response.body}`)
  return (response.json() as { campaign: C }).campaign
}

/** Each bucket once: they add up to total. */
export function sumOf (counts: Counts): number {
  return counts.rejected + counts.skipped + counts.waiting + counts.queued + counts.sent + counts.delivered + counts.read + counts.failed + counts.cancelled
}

export async function untilStatus (gateway: TestGateway, workspace: Pick<ConnectedWorkspace, 'authorization'>, id: string, status: string, timeoutMs = 30_000): Promise<C> {
  return await waitFor(async () => {
    const campaign = await readCampaign(gateway, workspace, id)
    return campaign.status === status ? campaign : undefined
  }, { timeoutMs, intervalMs: 100, what: `campaign ${id} to be ${status}` })
}

/** How many template messages the emulator received per recipient (digits). */
export function sendsPerRecipient (gateway: TestGateway, template?: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const sent of gateway.emulator.sentMessages) {
    const name = (sent.payload.template as { name?: string } | undefined)?.name
    if (name === undefined || (template !== undefined && name !== template)) continue
    const to = String(sent.payload.to)
    counts.set(to, (counts.get(to) ?? 0) + 1)
  }
  return counts
}
