import type { MessageRecord } from '../../db/schema.js'
import type { CampaignDispatch } from '../messages/queue.js'
import type { CampaignStore } from '../store/campaigns.js'
import { campaignMessage } from './payload.js'

// Queued messages of a campaign left without a job (withdrawn at their slot while it was paused) are looked for this often.
const ORPHANS_EVERY_MS = 5000

/**
 * The campaigns' side of the queued-send drain: recipients become queued message records a
 * second's worth at a time (so pause, cancel and ordinary queued sends never wait behind a
 * materialised backlog), a finished campaign is completed with its event, and the messaging limit
 * turns a campaign `waiting_for_limit` instead of failing its messages.
 */
export function createCampaignLane (deps: { campaigns: CampaignStore }): CampaignDispatch {
  const { campaigns } = deps
  const orphansLookedAt = new Map<string, number>()
  // the campaign's last known state under the limit: written only when it changes
  const waitingState = new Map<string, boolean>()

  return {
    liveNumbers: async () => await campaigns.liveNumbers(),

    async feed (numberId, want) {
      const live = await campaigns.liveOn(numberId)
      let made = 0
      let still = 0
      for (const campaign of live) {
        if (made < want && campaign.materialised < campaign.accepted) {
          made += await campaigns.materialise(campaign.id, want - made, campaignMessage)
          still += 1
          continue
        }
        if (campaign.materialised < campaign.accepted) { still += 1; continue }
        if (await campaigns.completeIfDone(campaign.id)) { orphansLookedAt.delete(campaign.id); continue }
        still += 1
        const lookedAt = orphansLookedAt.get(campaign.id) ?? 0
        if (Date.now() - lookedAt >= ORPHANS_EVERY_MS) {
          orphansLookedAt.set(campaign.id, Date.now())
          made += await campaigns.requeueOrphans(campaign.id)
        }
      }
      return { live: still > 0, made }
    },

    claim: async (messageId, worker) => await campaigns.claim(messageId, worker),

    async waitingForLimit (record, waiting) {
      if (record.campaignId === null) return
      // written only when it changes: known at once, so that the campaign's other messages under
      // way meanwhile do not each write it too (the first drain wrote it ~750 times as it began)
      if (waitingState.get(record.campaignId) === waiting) return
      waitingState.set(record.campaignId, waiting)
      try {
        await campaigns.setWaiting(record.campaignId, waiting)
      } catch (error) {
        waitingState.delete(record.campaignId)
        throw error
      }
    }
  }
}
