import { Type } from '@sinclair/typebox'
import { ERASURE_STATUSES } from '../../db/schema.js'
import { PAGE_LIMIT, StringEnum } from '../messages/schemas.js'
import { COUNTS } from './content-map.js'

export { SuppressionBodySchema as ErasureBodySchema } from '../audience/schemas.js'

const ErasureSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(ERASURE_STATUSES),
  requested_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  counts: Type.Object(Object.fromEntries(COUNTS.map(count => [count, Type.Integer()])))
})

export const ErasureOkSchema = Type.Object({ ok: Type.Literal(true), erasure: ErasureSchema })
export const ErasureListSchema = Type.Object({ ok: Type.Literal(true), erasures: Type.Array(ErasureSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })
export const ErasureQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'One erasure (era_…).' })),
  limit: Type.Optional(Type.String({ pattern: PAGE_LIMIT, description: 'Page size, 1–100 (default 50).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The next_cursor of the previous page.' }))
})
