import type { Database } from '../../db/client.js'
import { inboundFileOf, inboundMediaView } from '../media/inbound.js'
import type { InboundParts, ReplyTo } from '../resources/inbound.js'
import { repliedTo, templateComponents } from '../store/conversations.js'
import type { InboundMessage } from '../store/inbound.js'
import type { MediaRow } from '../store/media.js'
import { contextWamid, inboundText, outboundText, templateOf } from './text.js'

type Reader = Pick<Database, 'select'>
type Inbound = Pick<InboundMessage, 'id' | 'type' | 'payload'>

/**
 * What each message shows beyond its row (CONTRACT.md 19): its text, its file, and what it replies
 * to, resolved from the workspace's own messages both ways in a few statements for any number of
 * messages (a list page, the intake's batch). `media`: the files' rows by inbound message id.
 */
export async function inboundParts (on: Reader, workspaceId: string, messages: Inbound[], media: ReadonlyMap<string, MediaRow> = new Map()): Promise<Map<string, InboundParts>> {
  const replies = await resolveReplies(on, workspaceId, messages.flatMap(message => contextWamid(message.payload) ?? []))
  return new Map(messages.map(message => {
    const file = inboundFileOf(message.type, message.payload)
    const wamid = contextWamid(message.payload)
    return [message.id, {
      text: inboundText(message.type, message.payload),
      media: file ? { ...inboundMediaView(file, media.get(message.id)) } : null,
      replyTo: wamid === undefined ? null : replies.get(wamid) ?? { wamid, direction: null }
    }]
  }))
}

async function resolveReplies (on: Reader, workspaceId: string, wamids: string[]): Promise<Map<string, ReplyTo>> {
  const found = await repliedTo(on, workspaceId, [...new Set(wamids)])
  const named = found.outbound.flatMap(message => message.type === 'template' ? templateOf(message.payload) ?? [] : [])
  const catalog = await templateComponents(on, workspaceId, named)
  const replies = new Map<string, ReplyTo>()
  for (const message of found.inbound) {
    replies.set(message.wamid, { direction: 'inbound', id: message.id, wamid: message.wamid, type: message.type, text: inboundText(message.type, message.payload), campaign_id: null, client_reference: null })
  }
  for (const message of found.outbound) {
    const template = templateOf(message.payload)
    const components = template && catalog.get(`${template.name}\u0000${template.language}`)
    replies.set(message.wamid, {
      direction: 'outbound',
      id: message.id,
      wamid: message.wamid,
      type: message.type,
      text: outboundText(message.type, message.payload, components),
      campaign_id: message.campaignId,
      client_reference: message.clientReference
    })
  }
  return replies
}
