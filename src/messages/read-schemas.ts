import { Type, type Static } from '@sinclair/typebox'
import { MESSAGE_STATUSES } from '../../db/schema.js'
import { ISO_DATE_TIME, PAGE_LIMIT, PHONE, StringEnum } from './schemas.js'

/** The query of GET /api/messages.php (CONTRACT.md 7). Query values are strings: numbers and dates are patterns here, parsed in list-query.ts. */
export const MessageQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Read one message by its id (msg_…).' })),
  wamid: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Read one message by its upstream id (wamid.…).' })),
  status: Type.Optional(StringEnum(MESSAGE_STATUSES, { description: 'List: only messages in this status.' })),
  to: Type.Optional(Type.String({ pattern: PHONE, description: 'List: only messages to this recipient.' })),
  since: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, description: 'List: only messages created at or after this ISO 8601 time.' })),
  client_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'List: only messages sent with this client_reference.' })),
  campaign_id: Type.Optional(Type.String({ pattern: '^cmp_[0-9a-z]{1,60}$', description: 'List: only the messages of this campaign.' })),
  limit: Type.Optional(Type.String({ pattern: PAGE_LIMIT, description: 'List: page size, 1–100 (default 50).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'List: the next_cursor of the previous page.' }))
})

export type MessageQuery = Static<typeof MessageQuerySchema>

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])
const ErrorSchema = Type.Union([Type.Object({ code: Type.String(), message: Nullable(Type.String()) }), Type.Null()])

const messageFields = {
  id: Type.String(),
  wamid: Nullable(Type.String()),
  to: Type.String(),
  from_phone_number_id: Type.String(),
  type: Type.String(),
  status: StringEnum(MESSAGE_STATUSES),
  error: ErrorSchema,
  attempts: Type.Integer(),
  client_reference: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' })
}

const HistoryEntrySchema = Type.Object({
  status: Type.String({ description: 'pending, sent, delivered, read, failed, or another upstream status (played, …)' }),
  at: Type.String({ format: 'date-time', description: "The upstream's timestamp for webhook events; ours for the record's own steps." }),
  error: ErrorSchema
})

export const MessageReadSchema = Type.Object({
  ok: Type.Literal(true),
  message: Type.Optional(Type.Object({ ...messageFields, history: Type.Array(HistoryEntrySchema) }, { description: 'With ?id= or ?wamid=: the message and its whole history.' })),
  messages: Type.Optional(Type.Array(Type.Object(messageFields), { description: 'Without id or wamid: a page, newest first.' })),
  next_cursor: Type.Optional(Nullable(Type.String({ description: 'Pass as ?cursor= for the next page; null on the last.' })))
})
