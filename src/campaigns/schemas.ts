import { Type } from '@sinclair/typebox'
import { CAMPAIGN_STATUSES, PAUSED_REASONS } from '../../db/schema.js'
import { ErrorEnvelopeSchema } from '../messages/schemas.js'

const Count = Type.Integer({ minimum: 0 })
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

/** C of CONTRACT.md 15. */
export const CampaignSchema = Type.Object({
  id: Type.String({ description: 'cmp_…' }),
  name: Type.String(),
  status: Type.Union(CAMPAIGN_STATUSES.map(status => Type.Literal(status))),
  template: Type.String(),
  language: Type.String(),
  phone_number_id: Type.String(),
  send_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  paused_reason: Type.Union([...PAUSED_REASONS.map(reason => Type.Literal(reason)), Type.Null()], { description: 'Why it is paused: by the quality guard (number_flagged, tier_downgraded, template_paused, template_quality_red, failure_rate) or by a person (manual); null when not paused.' }),
  counts: Type.Object({
    total: Count, rejected: Count, skipped: Count, waiting: Count, queued: Count, sent: Count, delivered: Count, read: Count, failed: Count, cancelled: Count
  }, { description: 'Every recipient once, in the bucket of its current state: they add up to total.' })
})

export const CampaignCreatedSchema = Type.Object({
  ok: Type.Literal(true),
  campaign: CampaignSchema,
  rejected: Type.Array(Type.Object({ row: Type.Integer(), field: Type.String(), error: Type.String() }), { description: 'The first 100 rows not accepted (row 1 is the first recipient).' })
})

export const CampaignReadSchema = Type.Union([
  Type.Object({ ok: Type.Literal(true), campaign: CampaignSchema }),
  Type.Object({ ok: Type.Literal(true), campaigns: Type.Array(CampaignSchema), next_cursor: Nullable(Type.String()) })
])

export const CampaignQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ pattern: '^cmp_[0-9a-z]{1,60}$', description: 'One campaign.' })),
  action: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume'), Type.Literal('cancel')], { description: 'POST with id: pause, resume or cancel the campaign.' })),
  limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$', description: 'List: 1–100, default 50.' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'List: next_cursor of the previous page.' }))
})

export const CampaignErrors = {
  '4xx': { ...ErrorEnvelopeSchema, description: '401, 403, 404 (no such campaign), 413 (CAMPAIGN_BODY_LIMIT_BYTES), 415, 422 (invalid_request naming the field; template_not_found; template_not_approved; template_parameters), 429' },
  409: {
    ...ErrorEnvelopeSchema,
    description: 'no_active_connection (creating or acting needs a connected number); campaign_ended: pause, resume or cancel asked of a campaign that is completed (or cancelled, for pause and resume): nothing changed. The campaign can be read with GET.'
  },
  '5xx': { ...ErrorEnvelopeSchema, description: '503 with Retry-After (database_unavailable: nothing was created)' }
}
