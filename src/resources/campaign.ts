import type { CampaignRecord, CampaignStatus, PausedReason } from '../../db/schema.js'

/** Every bucket a recipient can be in; they add up to `total` (CONTRACT.md 15). */
export interface CampaignCounts {
  total: number
  rejected: number
  skipped: number
  waiting: number
  queued: number
  sent: number
  delivered: number
  read: number
  failed: number
  cancelled: number
}

/** The campaign's messages by status (`failed` split: cancelled ones apart), as the store counts them. */
export interface MessageTally { status: string, cancelled: boolean, count: number }

/**
 * Each recipient in the bucket of its current state: not yet made into a message → waiting (or
 * cancelled, once the campaign is); a message queued while the campaign does not run → waiting;
 * queued or sending → queued; then the message's own status.
 */
export function campaignCounts (campaign: Pick<CampaignRecord, 'status' | 'accepted' | 'rejected' | 'skipped' | 'materialised'>, tally: MessageTally[]): CampaignCounts {
  const counts: CampaignCounts = { total: campaign.accepted + campaign.rejected + campaign.skipped, rejected: campaign.rejected, skipped: campaign.skipped, waiting: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, cancelled: 0 }
  const notMade = Math.max(0, campaign.accepted - campaign.materialised)
  if (campaign.status === 'cancelled') counts.cancelled += notMade
  else counts.waiting += notMade
  const dispatching = campaign.status === 'running' || campaign.status === 'waiting_for_limit'
  for (const row of tally) {
    switch (row.status) {
      case 'queued': if (dispatching) counts.queued += row.count; else counts.waiting += row.count; break
      case 'sending': case 'pending': counts.queued += row.count; break
      case 'held': counts.waiting += row.count; break
      case 'sent': counts.sent += row.count; break
      case 'delivered': counts.delivered += row.count; break
      case 'read': counts.read += row.count; break
      case 'failed': if (row.cancelled) counts.cancelled += row.count; else counts.failed += row.count; break
      default: counts.queued += row.count
    }
  }
  return counts
}

/** C of CONTRACT.md 15: the API's campaign, and the data of `campaign.completed`. */
export function campaignView (campaign: CampaignRecord, counts: CampaignCounts) {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status as CampaignStatus,
    template: campaign.template,
    language: campaign.language,
    phone_number_id: campaign.phoneNumberId,
    send_at: campaign.sendAt.toISOString(),
    created_at: campaign.createdAt.toISOString(),
    completed_at: campaign.completedAt?.toISOString() ?? null,
    // why it stopped (CONTRACT.md 21); a campaign paused before the guard was paused by a person
    paused_reason: (campaign.status === 'paused' ? campaign.pausedReason ?? 'manual' : null) as PausedReason | null,
    counts
  }
}

export type CampaignView = ReturnType<typeof campaignView>
