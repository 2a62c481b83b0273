import type { inboundMessages } from '../../db/schema.js'

type InboundMessage = typeof inboundMessages.$inferSelect

/** An inbound message as the command line lists it (never its content). */
export function publicInbound (message: InboundMessage) {
  return {
    id: message.id,
    wamid: message.wamid,
    from: message.from,
    // a sender known only by its business-scoped user id has `from` null (CONTRACT.md 16)
    from_user_id: message.fromUserId,
    type: message.type,
    phone_number_id: message.phoneNumberId,
    received_at: message.receivedAt.toISOString(),
    content_purged_at: message.contentPurgedAt?.toISOString() ?? null
  }
}
