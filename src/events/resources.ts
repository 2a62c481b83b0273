import { inboundFileOf, inboundMediaView } from '../media/inbound.js'
import { messageView } from '../messages/message-view.js'
import type { MessageRecord } from '../store/messages.js'
import type { InboundMessage } from '../store/inbound.js'

/** CONTRACT.md 7's message shape M without its history (the GET endpoint's own view): the data of every message.* event. */
export function messageResource (record: MessageRecord) {
  return messageView(record)
}

const MESSAGE_EVENT = { sent: 'message.sent', delivered: 'message.delivered', read: 'message.read', failed: 'message.failed', queued: 'message.queued' } as const

/** The event a record's new status makes, if any (`pending`/`sending` make none). */
export function messageEvent (record: MessageRecord) {
  const type = MESSAGE_EVENT[record.status as keyof typeof MESSAGE_EVENT]
  return type ? { workspaceId: record.workspaceId, type, data: messageResource(record) } : undefined
}

/** At receipt, in the intake's transaction: a file is announced before the mirror has stored it (`stored: false`, `file_size: null`). */
export function receivedEvent (message: InboundMessage) {
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
      ...(file && { media: inboundMediaView(file) })
    }
  }
}

export function templateEvent (template: { workspaceId: string, name: string, language: string, status: string, category: string | null }) {
  return { workspaceId: template.workspaceId, type: 'template.updated' as const, data: { name: template.name, language: template.language, status: template.status, category: template.category } }
}
