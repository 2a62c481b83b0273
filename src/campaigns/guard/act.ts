import type { CampaignRecord } from '../../../db/schema.js'
import { actors, audit } from '../../access/audit.js'
import { campaignView } from '../../resources/campaign.js'
import { holdRecovery, pauseLive, startRecovery, type GuardTarget } from '../../store/campaign-guard.js'
import { campaignWithCounts } from '../../store/campaigns.js'
import { emitEvents } from '../../store/outbox.js'
import type { Transaction } from '../../work/runner.js'
import { resumeAt, type Verdict } from './rules.js'

/** QUALITY_GUARD and its knobs, as the guard reads them. */
export interface GuardSettings { on: boolean, recoveryMs: number, window: number, rate: number, codes: string[] }

/** The guard's changes as a person's are told: the event (data C) and the audit entry, by the service itself, in the change's transaction. */
export async function announce (tx: Transaction, rows: CampaignRecord[], action: 'campaign.paused' | 'campaign.resumed'): Promise<void> {
  for (const row of rows) {
    const { counts } = await campaignWithCounts(tx, row)
    await emitEvents(tx, [{ workspaceId: row.workspaceId, type: action, data: campaignView(row, counts) }])
    await audit.record(tx, { ...actors.system(), workspaceId: row.workspaceId, action, target: { kind: 'campaign', id: row.id } })
  }
}

/**
 * A signal's verdict on its campaigns: a pause stops those running or waiting (and holds back the
 * recovery of those already paused for the same cause: a new signal); a clearing starts the
 * recovery of those paused for it. A campaign paused by a person is neither (its reason is manual).
 */
export async function applyVerdict (tx: Transaction, target: GuardTarget, verdict: Verdict, settings: GuardSettings, pauseTarget: GuardTarget = target): Promise<number> {
  if (verdict.act === 'clear') {
    await startRecovery(tx, target, verdict.reason, resumeAt(new Date(), settings.recoveryMs))
    return 0
  }
  await holdRecovery(tx, target, verdict.reason)
  const paused = await pauseLive(tx, pauseTarget, verdict.reason)
  await announce(tx, paused, 'campaign.paused')
  return paused.length
}
