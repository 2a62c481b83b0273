import { flowReply } from '../conversations/text.js'
import { inboundFileOf, inboundMediaView } from '../media/inbound.js'
import { inboundView, type InboundParts } from '../resources/inbound.js'
import type { InboundMessage } from '../store/inbound.js'

// message.* events are built below the store (src/resources/message.ts): the store emits them in the transaction of its change.

/** At receipt: message.received, and flow.completed for a completed WhatsApp Flow (CONTRACT.md 19), once per inbound message. */
export function receivedEvents (message: InboundMessage, parts: InboundParts) {
  const flow = flowReply(message.type, message.payload)
  const received = receivedEvent(message, parts)
  if (!flow) return [received]
  return [received, {
    workspaceId: message.workspaceId,
    type: 'flow.completed' as const,
    data: { inbound: inboundView(message, parts), flow_token: flow.flowToken, response: flow.response }
  }]
}

/** At receipt, in the intake's transaction: a file is announced before the mirror has stored it (`stored: false`, `file_size: null`). */
export function receivedEvent (message: InboundMessage, parts?: InboundParts) {
  const file = inboundFileOf(message.type, message.payload)
  return {
    workspaceId: message.workspaceId,
    type: 'message.received' as const,
    data: {
      id: message.id,
      wamid: message.wamid,
      from: message.from,
      from_user_id: message.fromUserId,
      phone_number_id: message.phoneNumberId,
      type: message.type,
      received_at: message.receivedAt.toISOString(),
      content: message.payload,
      ...(file && { media: inboundMediaView(file) }),
      reply_to: parts?.replyTo ?? null
    }
  }
}

export function templateEvent (template: { workspaceId: string, name: string, language: string, status: string, category: string | null }) {
  return { workspaceId: template.workspaceId, type: 'template.updated' as const, data: { name: template.name, language: template.language, status: template.status, category: template.category } }
}
