import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { act, createCampaign, readCampaign, recipients, type C } from './helpers.js'

export const WABA = '102290129340398'
export const NUMBER = '106540352242922'
export const OTHER_NUMBER = '106540352242923'

/** C with the guard's reason (CONTRACT.md 21). */
export type GuardedC = C & { paused_reason: string | null }

/** A campaign of `count` recipients from `from` on, running (slow enough to be paused mid-drain at THROUGHPUT_MPS 5). */
export async function runningCampaign (gateway: TestGateway, workspace: ConnectedWorkspace, count: number, from: number, fields: Record<string, unknown> = {}): Promise<string> {
  const template = (fields.template as string | undefined) ?? 'hello_world'
  const variables = template === 'order_confirmation' ? () => ['x'] : undefined
  const response = await createCampaign(gateway, workspace, { template, language: 'en_US', recipients: recipients(count, from, variables), ...fields })
  if (response.statusCode !== 201) throw new Error(`create: ${response.statusCode} ${response.body}`)
  return (response.json() as { campaign: C }).campaign.id
}

export async function guarded (gateway: TestGateway, workspace: ConnectedWorkspace, id: string): Promise<GuardedC> {
  return await readCampaign(gateway, workspace, id) as GuardedC
}

/** Waits (5 s: the contract's bound, and a little for a loaded machine) until the campaign is in `status` with `reason`. */
export async function campaignBecomes (gateway: TestGateway, workspace: ConnectedWorkspace, id: string, status: string, reason: string | null, timeoutMs = 8000): Promise<GuardedC> {
  return await waitFor(async () => {
    const campaign = await guarded(gateway, workspace, id)
    return campaign.status === status && campaign.paused_reason === reason ? campaign : undefined
  }, { timeoutMs, intervalMs: 100, what: `campaign ${id} to be ${status} (${String(reason)})` })
}

/** The campaign's audit entries of an action, as GET-able (the audit store). */
export async function auditOf (gateway: TestGateway, workspace: ConnectedWorkspace, id: string, action: string) {
  const rows = await gateway.app.auditLog.page(workspace.workspaceId, { limit: 500 })
  return rows.filter(row => row.targetId === id && row.action === action)
}

export const sleep = async (ms: number) => await new Promise(resolve => setTimeout(resolve, ms))

export interface NumberLimits { phone_number_id: string, messaging_limit: { used_24h: number, limit: number | null }, quality_history: Array<{ rating: string | null, event: string | null, at: string }> }

/** GET /api/limits.php's numbers. */
export async function limitsOf (gateway: TestGateway, workspace: ConnectedWorkspace): Promise<NumberLimits[]> {
  const response = await gateway.app.inject({ method: 'GET', url: '/api/limits.php', headers: { authorization: workspace.authorization } })
  return (response.json() as { phone_numbers: NumberLimits[] }).phone_numbers
}

/** Cancels every campaign of the workspace not yet ended. */
export async function cancelAll (gateway: TestGateway, workspace: ConnectedWorkspace): Promise<void> {
  const response = await gateway.app.inject({ method: 'GET', url: '/api/campaigns.php?limit=100', headers: { authorization: workspace.authorization } })
  for (const campaign of (response.json() as { campaigns: C[] }).campaigns) {
    if (campaign.status !== 'completed' && campaign.status !== 'cancelled') await act(gateway, workspace, campaign.id, 'cancel')
  }
}
