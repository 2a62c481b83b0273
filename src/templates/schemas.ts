import { Type } from '@sinclair/typebox'
import { PAGE_LIMIT } from '../messages/schemas.js'

export const TemplateSchema = Type.Object({
  id: Type.String({ description: 'The upstream\'s template id.' }),
  name: Type.String(),
  language: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'APPROVED, PENDING, REJECTED, PAUSED, DISABLED, …' }),
  parameter_format: Type.String({ description: 'positional or named' }),
  components: Type.Array(Type.Unknown(), { description: 'In the upstream\'s shape (HEADER, BODY, FOOTER, BUTTONS).' }),
  quality: Type.Union([Type.String(), Type.Null()], { description: 'GREEN, YELLOW, RED, UNKNOWN; null before any score' }),
  rejected_reason: Type.Union([Type.String(), Type.Null()]),
  updated_at: Type.String()
})

const loose = (description: string) => Type.Optional(Type.Unknown({ description }))

/** Checked by the one validator (src/templates/rules.ts), which names the JSON path of what breaks a rule; the schema lets everything through to it. */
export const TemplateBodySchema = Type.Object({
  name: loose('^[a-z0-9_]{1,512}$ (create)'),
  language: loose('A locale code such as en_US (create).'),
  category: loose('AUTHENTICATION, MARKETING or UTILITY (create; on an edit only of a template not APPROVED).'),
  parameter_format: loose('positional (default) or named (create).'),
  components: loose('HEADER, BODY (required), FOOTER, BUTTONS, in the upstream\'s shape; every placeholder with its example.'),
  allow_category_change: loose('Accepted and passed on (create).')
}, { additionalProperties: true })

export const TemplateQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'GET: one template; POST: the template to edit.' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  status: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  limit: Type.Optional(Type.String({ pattern: PAGE_LIMIT, description: 'Page size, 1–100 (default 50).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The next_cursor of the previous page.' }))
})

export const TemplateDeleteQuerySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 512 }),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'One language; without it, every language of the name.' }))
})

export const TemplateListSchema = Type.Object({ ok: Type.Literal(true), templates: Type.Array(TemplateSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) })
export const TemplateOneSchema = Type.Object({ ok: Type.Literal(true), template: TemplateSchema })
export const TemplateDeletedSchema = Type.Object({ ok: Type.Literal(true), deleted: Type.Integer() })
