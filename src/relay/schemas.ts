import { Type } from '@sinclair/typebox'
import { RELAY_FIELDS, RELAY_SIGNINGS } from '../../db/schema.js'

const Nullable = <T extends ReturnType<typeof Type.Array>>(schema: T) => Type.Union([schema, Type.Null()])

export const RelaySchema = Type.Object({
  id: Type.String({ description: 'rly_…' }),
  url: Type.String(),
  fields: Type.Array(Type.String(), { description: `Meta's change fields it receives; every field by default (${RELAY_FIELDS.length} listed, those Meta adds later included).` }),
  phone_number_ids: Nullable(Type.Array(Type.String(), { description: 'The numbers whose messages changes it receives; null: all the workspace\'s.' })),
  signing: Type.String({ enum: [...RELAY_SIGNINGS] }),
  created_at: Type.String({ format: 'date-time' }),
  secret: Type.Optional(Type.String({ description: 'rls_…, the HMAC key of `own` signing: shown this once.' }))
})

// `fields` and `signing` are checked by src/relay/targets.ts, which names the known values in its 422
export const RelayBodySchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 4096, description: 'https:// (section 10\'s SSRF rules apply).' }),
  fields: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50, description: `Meta's change fields: ${RELAY_FIELDS.join(', ')}. Default: every field.` })),
  phone_number_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, description: 'Filters the changes of field messages by value.metadata.phone_number_id. Default: all.' })),
  signing: Type.Optional(Type.String({ maxLength: 10, description: 'app (default: X-Hub-Signature-256 keyed with APP_SECRET) or own (with the relay\'s secret).' }))
})

export const RelayAddedSchema = Type.Object({ ok: Type.Literal(true), relay: RelaySchema })
export const RelayListSchema = Type.Object({ ok: Type.Literal(true), relays: Type.Array(RelaySchema) })
export const RelayIdQuerySchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) })
export const OkSchema = Type.Object({ ok: Type.Literal(true) })
