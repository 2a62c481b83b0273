import { Type, type Static } from '@sinclair/typebox'
import { HOLD_REASONS } from '../../db/schema.js'
import { MESSAGE_STATUSES } from '../resources/message-status.js'
import { USER_ID } from '../resources/recipient.js'
import { ISO_DATE_TIME, PHONE, StringEnum } from './schemas.js'

/** The statuses M shows: the record's, and `held` for a queued send waiting for a reason (CONTRACT.md 14). */
export const API_MESSAGE_STATUSES = [...MESSAGE_STATUSES, 'held'] as const

/** The query of GET /api/messages.php (CONTRACT.md 7). Dates are patterns here, parsed in list-query.ts; `limit` is an integer (src/query-integers.ts reads it so). */
export const MessageQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Read one message by its id (msg_…).' })),
  wamid: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Read one message by its upstream id (wamid.…).' })),
  status: Type.Optional(StringEnum(API_MESSAGE_STATUSES, { description: 'List: only messages in this status (held: queued sends waiting for a reason).' })),
  to: Type.Optional(Type.String({ pattern: PHONE, description: 'List: only messages to this phone number.' })),
  recipient_user_id: Type.Optional(Type.String({ pattern: USER_ID, description: 'List: only messages to this business-scoped user id.' })),
  since: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, description: 'List: only messages created at or after this ISO 8601 time.' })),
  client_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'List: only messages sent with this client_reference.' })),
  campaign_id: Type.Optional(Type.String({ pattern: '^cmp_[0-9a-z]{1,60}$', description: 'List: only the messages of this campaign.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'List: page size, 1–100 (default 50).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'List: the next_cursor of the previous page.' }))
})

export type MessageQuery = Static<typeof MessageQuerySchema>

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])
const ErrorSchema = Type.Union([Type.Object({
  code: Type.String({ description: 'Always a string: the upstream\'s code as digits ("131026"; the 502 envelope\'s upstream.code gives it as a number) or ours ("expired", "interrupted", …).' }),
  message: Nullable(Type.String())
}), Type.Null()])

export const messageFields = {
  id: Type.String(),
  wamid: Nullable(Type.String()),
  to: Nullable(Type.String({ description: 'The phone number (digits); null for a message sent to a business-scoped user id.' })),
  recipient_user_id: Nullable(Type.String({ description: 'The business-scoped user id the message was sent to; null for one sent to a phone number.' })),
  from_phone_number_id: Type.String(),
  type: Type.String(),
  status: StringEnum(API_MESSAGE_STATUSES),
  held_reason: Type.Union([StringEnum(HOLD_REASONS), Type.Null()], { description: 'Why a held message waits: messaging_limit, cooldown or template_paused; null otherwise.' }),
  error: ErrorSchema,
  attempts: Type.Integer(),
  client_reference: Nullable(Type.String()),
  pricing: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: "The upstream's pricing of the message from its status webhooks (billable, pricing_model, type, category); null until one carries it." }),
  content_purged_at: Nullable(Type.String({ format: 'date-time', description: 'When the message\'s content was purged (retention, a purge, an erasure); null while it is kept.' })),
  erased: Type.Optional(Type.Literal(true, { description: 'Present on an erased record only: to, recipient_user_id and wamid are null.' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' })
}

const HistoryEntrySchema = Type.Object({
  status: Type.String({ description: 'queued, sending or pending, then sent, delivered, read or failed, or another upstream status (played, …); each status once.' }),
  at: Type.String({ format: 'date-time', description: "Ours for the message's own steps; the upstream's timestamp for its events (whole seconds), never placed before a step it must follow." }),
  error: ErrorSchema
})

export const MessageReadSchema = Type.Object({
  ok: Type.Literal(true),
  message: Type.Optional(Type.Object({ ...messageFields, history: Type.Array(HistoryEntrySchema) }, { description: 'With ?id= or ?wamid=: the message and its whole history.' })),
  messages: Type.Optional(Type.Array(Type.Object(messageFields), { description: 'Without id or wamid: a page, newest first.' })),
  next_cursor: Type.Optional(Nullable(Type.String({ description: 'Pass as ?cursor= for the next page; null on the last.' })))
})
