import type { CampaignRecord } from '../../db/schema.js'
import { upstreamPayload } from '../messages/payload.js'
import type { CampaignMessage, Recipient } from '../store/campaigns.js'
import { newId } from '../store/ids.js'

/** A recipient's message: the campaign's template with the recipient's variables as the body's parameters. */
export function campaignMessage (campaign: CampaignRecord, recipient: Recipient): CampaignMessage {
  const id = newId('msg')
  const { variables } = recipient
  const parameters = variables === null
    ? []
    : Array.isArray(variables)
      ? variables.map(text => ({ type: 'text', text }))
      : Object.entries(variables).map(([name, text]) => ({ type: 'text', parameter_name: name, text }))
  const content = {
    name: campaign.template,
    language: { code: campaign.language },
    ...(parameters.length > 0 && { components: [{ type: 'body', parameters }] })
  }
  return { id, recipient: recipient.to, clientReference: recipient.clientReference, payload: upstreamPayload({ type: 'template', recipient: recipient.to, content }, id) }
}
