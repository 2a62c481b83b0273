import { actors, audit } from '../../access/audit.js'
import { campaignView } from '../../resources/campaign.js'
import { CommandError, defineCommand } from '../command.js'
import { integer, optional, text } from '../flags.js'
import { existingWorkspace } from './workspace.js'

const AUDITED = { pause: 'campaign.paused', resume: 'campaign.resumed', cancel: 'campaign.cancelled' } as const

export const campaignsList = defineCommand({
  summary: 'lists a workspace\'s campaigns with their counts, newest first',
  flags: { workspace: text('ID'), limit: optional(integer('N', 1, 100), 50) },
  async run ({ workspace, limit }, runtime) {
    await existingWorkspace(runtime, workspace)
    const page = await runtime.stores.campaigns.page(workspace, { limit })
    return { campaigns: (page?.rows ?? []).map(row => campaignView(row.campaign, row.counts)) }
  }
})

export const campaignsShow = defineCommand({
  summary: 'shows one campaign: its status, its counts and why its failed messages failed',
  flags: { id: text('ID') },
  async run ({ id }, runtime) {
    const found = await runtime.stores.campaigns.find(id)
    if (!found) throw new CommandError(`campaign ${JSON.stringify(id)} not found`)
    return { campaign: campaignView(found.campaign, found.counts), failure_reasons: await runtime.stores.campaigns.failureReasons(id) }
  }
})

/** pause (stops new dispatch within a second), resume, or cancel (every unsent message ends cancelled); audited as the operator. */
export function campaignsAct (action: 'pause' | 'resume' | 'cancel') {
  return defineCommand({
    summary: { pause: 'pauses a campaign: nothing more is dispatched until it is resumed', resume: 'resumes a paused campaign', cancel: 'cancels a campaign: every message not sent yet ends cancelled' }[action],
    flags: { id: text('ID') },
    async run ({ id }, runtime) {
      const found = await runtime.stores.campaigns.find(id)
      if (!found) throw new CommandError(`campaign ${JSON.stringify(id)} not found`)
      const acted = await runtime.stores.campaigns.act(found.campaign.workspaceId, id, action,
        audit.of(actors.cli(), AUDITED[action], campaign => ({ workspaceId: campaign.workspaceId, target: { kind: 'campaign', id: campaign.id } })))
      const status = acted!.campaign.status
      if (!acted!.changed && (status === 'completed' || (status === 'cancelled' && action !== 'cancel'))) throw new CommandError(`campaign ${id} is ${status}: it can no longer change`)
      const read = await runtime.stores.campaigns.find(id)
      return { campaign: campaignView(read!.campaign, read!.counts) }
    }
  })
}
