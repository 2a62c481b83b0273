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
    received_at: message.receivedAt.toISOString()
  }
}

/** What a reply's `context.id` names (CONTRACT.md 19): one of the workspace's messages, or a wamid we do not hold. */
export type ReplyTo =
  | { direction: 'outbound' | 'inbound', id: string, wamid: string, type: string, text: string | null, campaign_id: string | null, client_reference: string | null }
  | { wamid: string, direction: null }

export interface InboundParts {
  text: string | null
  media: Record<string, unknown> | null
  replyTo: ReplyTo | null
}

/** I of CONTRACT.md 19: an inbound message as the API reads it, and as its events carry it. */
export function inboundView (message: InboundMessage, parts: InboundParts) {
  return {
    id: message.id,
    wamid: message.wamid,
    from: message.from,
    from_user_id: message.fromUserId,
    phone_number_id: message.phoneNumberId,
    type: message.type,
    text: parts.text,
    content: message.payload,
    media: parts.media,
    received_at: message.receivedAt.toISOString(),
    read_at: message.readAt?.toISOString() ?? null,
    reply_to: parts.replyTo,
    // set by retention and erasure (CONTRACT.md 17) where they purge the content
    content_purged_at: (message as { contentPurgedAt?: Date | null }).contentPurgedAt?.toISOString() ?? null
  }
}

export type InboundView = ReturnType<typeof inboundView>

type Conversation = { to: string | null, recipientUserId: string | null, phoneNumberId: string, lastInboundAt: Date | null, lastOutboundAt: Date | null, unread: number }

/** How long after a person's last message free-form replies are allowed (CONTRACT.md 11). */
export const SERVICE_WINDOW_MS = 24 * 60 * 60_000

/** One conversation of GET /api/conversations.php's list. */
export function conversationView (row: Conversation) {
  return {
    to: row.to,
    recipient_user_id: row.recipientUserId,
    phone_number_id: row.phoneNumberId,
    last_inbound_at: row.lastInboundAt?.toISOString() ?? null,
    last_outbound_at: row.lastOutboundAt?.toISOString() ?? null,
    unread: row.unread,
    service_window_expires_at: row.lastInboundAt ? new Date(row.lastInboundAt.getTime() + SERVICE_WINDOW_MS).toISOString() : null
  }
}
