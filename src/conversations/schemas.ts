import { Type, type Static } from '@sinclair/typebox'
import { messageFields } from '../messages/read-schemas.js'
import { ISO_DATE_TIME, PHONE, StringEnum } from '../messages/schemas.js'
import { USER_ID } from '../resources/recipient.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])
const AnyObject = (description: string) => Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description })
const Cursor = Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: 'List: the next_cursor of the previous page.' }))
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'List: page size, 1–100 (default 50).' }))
const NumberId = Type.Optional(Type.String({ pattern: '^\\d{1,32}$', description: 'Only this sending number\'s messages.' }))

/** I of CONTRACT.md 19. */
export const inboundFields = {
  id: Type.String(),
  wamid: Type.String(),
  from: Nullable(Type.String({ description: 'The sender\'s phone number; null for a sender known only by its business-scoped user id.' })),
  from_user_id: Nullable(Type.String()),
  phone_number_id: Type.String(),
  type: Type.String({ description: 'The upstream\'s message type as given: text, image, button, interactive…' }),
  text: Nullable(Type.String({ description: 'A text\'s body, a caption, a quick-reply button\'s text, a button or list reply\'s title; null for a Flow\'s nfm_reply (see flow.completed).' })),
  content: Type.Unknown({ description: 'The upstream\'s message object.' }),
  media: AnyObject('The file the message carries: id, mime_type, file_size, sha256, caption, filename, stored; null for none.'),
  received_at: Type.String({ format: 'date-time', description: 'The upstream\'s timestamp.' }),
  read_at: Nullable(Type.String({ format: 'date-time' })),
  reply_to: AnyObject('What the message replies to: {direction, id, wamid, type, text, campaign_id, client_reference} for one of your messages, {wamid, direction: null} for another; null when it replies to nothing.'),
  content_purged_at: Nullable(Type.String({ format: 'date-time' }))
}

export const InboundQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Read one inbound message by its id (in_…).' })),
  wamid: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Read one inbound message by its upstream id.' })),
  from: Type.Optional(Type.String({ pattern: PHONE, description: 'List: only messages from this phone number.' })),
  recipient: Type.Optional(Type.String({ pattern: USER_ID, description: 'List: only messages from this business-scoped user id.' })),
  phone_number_id: NumberId,
  type: Type.Optional(Type.String({ pattern: '^[a-z_]{1,32}$', description: 'List: only messages of this upstream type.' })),
  since: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, description: 'List: only messages received at or after this ISO 8601 time.' })),
  limit: Limit,
  cursor: Cursor
})
export type InboundQuery = Static<typeof InboundQuerySchema>

export const InboundReadSchema = Type.Object({
  ok: Type.Literal(true),
  message: Type.Optional(Type.Object(inboundFields, { description: 'With ?id= or ?wamid=: the message.' })),
  messages: Type.Optional(Type.Array(Type.Object(inboundFields), { description: 'Without id or wamid: a page, newest first.' })),
  next_cursor: Type.Optional(Nullable(Type.String({ description: 'Pass as ?cursor= for the next page; null on the last.' })))
})

export const InboundActionQuerySchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The inbound message (in_…).' }),
  action: StringEnum(['read', 'typing'] as const, { description: 'read: a read receipt; typing: a typing indicator, which marks it read too.' })
})
export type InboundActionQuery = Static<typeof InboundActionQuerySchema>

export const TypingBodySchema = Type.Union([Type.Object({
  until: Type.Optional(StringEnum(['reply'] as const, { description: 'reply: renew the indicator every 20 s until a message is sent to the person from that number, or max_seconds pass.' })),
  max_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, description: 'With until=reply: how long at most (default 25).' }))
}), Type.Null()])
export type TypingBody = Static<typeof TypingBodySchema>

export const InboundActionSchema = Type.Object({
  ok: Type.Literal(true),
  read_at: Type.String({ format: 'date-time' }),
  typing_until: Type.Optional(Type.String({ format: 'date-time', description: 'typing: when the indicator stops showing at the latest (25 s, or the end of the renewals).' }))
})

export const ConversationQuerySchema = Type.Object({
  to: Type.Optional(Type.String({ pattern: PHONE, description: 'The thread with this phone number.' })),
  recipient: Type.Optional(Type.String({ pattern: USER_ID, description: 'The thread with this business-scoped user id.' })),
  phone_number_id: NumberId,
  limit: Limit,
  cursor: Cursor
})
export type ConversationQuery = Static<typeof ConversationQuerySchema>

const conversationFields = {
  to: Nullable(Type.String()),
  recipient_user_id: Nullable(Type.String()),
  phone_number_id: Type.String(),
  last_inbound_at: Nullable(Type.String({ format: 'date-time' })),
  last_outbound_at: Nullable(Type.String({ format: 'date-time' })),
  unread: Type.Integer({ description: 'Inbound messages not yet marked read.' }),
  service_window_expires_at: Nullable(Type.String({ format: 'date-time', description: 'The last inbound message\'s received_at + 24 h; null when none.' }))
}

export const ConversationReadSchema = Type.Object({
  ok: Type.Literal(true),
  messages: Type.Optional(Type.Array(Type.Union([
    Type.Object({ direction: Type.Literal('outbound'), ...messageFields }),
    Type.Object({ direction: Type.Literal('inbound'), ...inboundFields })
  ]), { description: 'With to or recipient: the thread, both ways, newest first.' })),
  conversations: Type.Optional(Type.Array(Type.Object(conversationFields), { description: 'Without: one per (person, number), most recently active first.' })),
  next_cursor: Nullable(Type.String({ description: 'Pass as ?cursor= for the next page; null on the last.' }))
})
