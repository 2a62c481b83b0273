import { Type } from '@sinclair/typebox'
import { SUPPRESSION_REASONS } from '../../db/schema.js'
import { ISO_DATE_TIME, PAGE_LIMIT, PHONE, StringEnum } from '../messages/schemas.js'
import { USER_ID } from '../resources/recipient.js'

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()])

export const SuppressionSchema = Type.Object({
  to: Nullable(Type.String({ description: 'The phone number; null for an entry by business-scoped user id.' })),
  recipient_user_id: Nullable(Type.String({ description: 'The business-scoped user id; null for an entry by phone number.' })),
  erased: Type.Boolean({ description: 'The person was erased: the entry is kept as an HMAC of the number, and to and recipient_user_id are null.' }),
  reason: StringEnum(SUPPRESSION_REASONS),
  created_at: Type.String({ format: 'date-time' })
})

export const SuppressionQuerySchema = Type.Object({
  // checked by the route (src/audience/suppression-target.ts): a raw + in a query string arrives as a space
  to: Type.Optional(Type.String({ maxLength: 32, description: 'A phone number: only this recipient (GET), or the recipient to remove (DELETE). A + written raw (decoded as a space) is accepted.' })),
  recipient: Type.Optional(Type.String({ pattern: USER_ID, description: 'A business-scoped user id instead of to.' })),
  limit: Type.Optional(Type.String({ pattern: PAGE_LIMIT, description: 'Page size, 1–100 (default 50).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The next_cursor of the previous page.' }))
})

export const SuppressionListSchema = Type.Object({
  ok: Type.Literal(true),
  suppressions: Type.Array(SuppressionSchema),
  next_cursor: Nullable(Type.String())
})

export const SuppressionBodySchema = Type.Object({
  to: Type.Optional(Type.String({ pattern: PHONE, description: 'A phone number.' })),
  recipient: Type.Optional(Type.String({ pattern: USER_ID, description: 'A business-scoped user id instead of to (exactly one of the two).' }))
})
export const SuppressionAddedSchema = Type.Object({ ok: Type.Literal(true), suppression: SuppressionSchema })
export const OkSchema = Type.Object({ ok: Type.Literal(true) })

export const LimitsSchema = Type.Object({
  ok: Type.Literal(true),
  phone_numbers: Type.Array(Type.Object({
    phone_number_id: Type.String(),
    display_phone_number: Type.String(),
    quality_rating: Nullable(Type.String()),
    throughput_mps: Type.Integer(),
    messaging_limit: Type.Object({
      tier: Nullable(Type.String()),
      limit: Nullable(Type.Integer({ description: 'null: unlimited' })),
      used_24h: Type.Integer(),
      available: Nullable(Type.Integer({ description: 'null: unlimited' })),
      next_slot_at: Nullable(Type.String({ format: 'date-time', description: 'When the oldest counted recipient leaves the rolling 24 h; null when none is counted.' }))
    }),
    quality_history: Type.Array(Type.Object({
      rating: Nullable(Type.String()),
      event: Nullable(Type.String()),
      at: Type.String({ format: 'date-time' })
    }), { description: "The last 30 days of the number's quality signals, oldest first: a webhook's event (with the rating when known), or an hourly read's rating (event null)." })
  }))
})

export const USAGE_GROUPS = ['day', 'category', 'country'] as const

export const UsageQuerySchema = Type.Object({
  since: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, description: 'ISO date or time, included; default 30 days ago.' })),
  until: Type.Optional(Type.String({ pattern: ISO_DATE_TIME, description: 'ISO date or time, excluded; default now.' })),
  group: Type.Optional(StringEnum(USAGE_GROUPS, { description: 'day (YYYY-MM-DD, UTC), category (pricing category) or country (from the calling code); default day.' }))
})

export const UsageSchema = Type.Object({
  ok: Type.Literal(true),
  rows: Type.Array(Type.Object({
    day: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
    billable: Type.Integer(),
    free: Type.Integer({ description: 'Priced as not billable by a status webhook.' }),
    unpriced: Type.Integer({ description: 'No status webhook has carried a price yet: neither billable nor free (counted in messages).' }),
    messages: Type.Integer()
  }))
})
