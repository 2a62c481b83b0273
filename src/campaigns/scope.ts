import { requireNumber, type KeyAccess } from '../access/scopes.js'
import type { CampaignStore } from '../store/campaigns.js'

/**
 * A campaign's actions (pause, resume, cancel) act from the campaign's number: a key limited to
 * other numbers gets 403 naming it (CONTRACT.md 16), before anything changes. A key with any
 * number costs no query; an unknown campaign is left to the caller's 404.
 */
export async function requireCampaignNumber (campaigns: Pick<CampaignStore, 'numberOf'>, key: KeyAccess & { workspaceId: string }, id: string): Promise<void> {
  if (key.phoneNumberIds === null) return
  const phoneNumberId = await campaigns.numberOf(key.workspaceId, id)
  if (phoneNumberId !== undefined) requireNumber(key, phoneNumberId)
}
