import { Type, type SchemaOptions, type Static } from '@sinclair/typebox'
import { USER_ID } from '../resources/recipient.js'

export const MESSAGE_TYPES = ['text', 'template', 'image', 'document', 'audio', 'video', 'sticker', 'interactive'] as const
export type MessageType = typeof MESSAGE_TYPES[number]
export const MEDIA_TYPES = ['image', 'document', 'audio', 'video', 'sticker'] as const
export type MediaType = typeof MEDIA_TYPES[number]
export const INTERACTIVE_TYPES = ['button', 'list', 'cta_url', 'flow', 'location_request_message', 'product', 'product_list', 'catalog_message'] as const

// Each pattern with the sentence a validation error uses for it (see validation-errors.ts).
export const PHONE = '^\\+?[1-9][0-9]{6,14}$'
const NOT_BLANK = '\\S'
const TEMPLATE_NAME = '^[a-z0-9_]{1,512}$'
const LANGUAGE = '^[a-z]{2,3}(_[A-Z]{2})?$'
const HTTP_URL = '^[hH][tT][tT][pP][sS]?://[^\\s/?#]+[^\\s]*$'
const WAMID = '^wamid\\.\\S+$'
export const ISO_DATE_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+ -][0-9]{2}:[0-9]{2}))?$'
export const PAGE_LIMIT = '^(100|[1-9][0-9]?)$'

export const PATTERN_RULES: Record<string, string> = {
  [PHONE]: 'must be a phone number in international format: an optional +, then 7 to 15 digits, the first not 0',
  [USER_ID]: 'must be a business-scoped user id: two capital letters, a dot, then 1 to 128 letters, digits, dots, underscores or hyphens (such as US.13491208655302741918)',
  [NOT_BLANK]: 'must not be only whitespace',
  [TEMPLATE_NAME]: 'must be a template name: lowercase letters, digits and underscores',
  [LANGUAGE]: 'must be a language code such as en, en_US or pt_BR',
  [HTTP_URL]: 'must be an absolute http(s) URL',
  [WAMID]: 'must be a message id starting with wamid.',
  [ISO_DATE_TIME]: 'must be an ISO 8601 date or date-time with its offset, such as 2026-01-31T12:00:00Z',
  [PAGE_LIMIT]: 'must be a whole number from 1 to 100'
}

/** A string enum as JSON Schema `enum`: one clear error ("must be one of …") where a union of literals gives one per member. */
export function StringEnum<const Values extends readonly string[]> (values: Values, options: SchemaOptions = {}) {
  return Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], ...options })
}

const Text = Type.String({ minLength: 1, maxLength: 4096, pattern: NOT_BLANK, description: 'Message text, 1–4096 characters (type text).' })
const TemplateName = Type.String({ pattern: TEMPLATE_NAME, description: 'Approved template name (type template).' })

const ParameterSchema = Type.Object({
  type: Type.String({ minLength: 1, description: 'text, currency, date_time, image, document, video, payload, …; the value sits in the field of that name' })
})

const ComponentSchema = Type.Object({
  type: Type.String({ minLength: 1, description: 'header, body, button, …' }),
  sub_type: Type.Optional(Type.String({ minLength: 1, description: 'buttons: quick_reply, url, copy_code, flow, …' })),
  index: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'buttons: position in the template, from 0' })),
  parameters: Type.Optional(Type.Array(ParameterSchema))
})

/** The body of POST /api/messages.php (CONTRACT.md section 2). Per-type rules that JSON Schema says badly live in compose.ts. */
export const SendMessageBodySchema = Type.Object({
  to: Type.Optional(Type.String({ pattern: PHONE, description: 'Recipient phone number in international format: optional +, then 7–15 digits. Exactly one of to and recipient.' })),
  recipient: Type.Optional(Type.String({ pattern: USER_ID, description: "Recipient's business-scoped user id (such as US.13491208655302741918), for a customer known only by it. Exactly one of to and recipient." })),
  type: Type.Optional(StringEnum(MESSAGE_TYPES, { default: 'text', description: 'Message type; text when omitted.' })),
  body: Type.Optional(Text),
  text: Type.Optional({ ...Text, description: 'Alias of body; body wins when both are given.' }),
  preview_url: Type.Optional(Type.Boolean({ description: 'Text only: render a preview of the first URL.' })),
  template: Type.Optional(TemplateName),
  template_name: Type.Optional({ ...TemplateName, description: 'Alias of template; template wins when both are given.' }),
  language: Type.Optional(Type.String({ pattern: LANGUAGE, description: "Template language code; omitted → the synced template's own language." })),
  components: Type.Optional(Type.Array(ComponentSchema, { description: 'Template components in the upstream format. In a form: nested keys or a JSON string.' })),
  media_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Media types: uploaded media id; exactly one of media_id and link.' })),
  link: Type.Optional(Type.String({ maxLength: 2048, pattern: HTTP_URL, description: 'Media types: public http(s) URL of the media.' })),
  caption: Type.Optional(Type.String({ maxLength: 1024, description: 'image, video and document only.' })),
  filename: Type.Optional(Type.String({ minLength: 1, maxLength: 240, description: 'document only: the file name shown.' })),
  interactive: Type.Optional(Type.Object({ type: StringEnum(INTERACTIVE_TYPES) }, { description: 'The upstream interactive object (type interactive). In a form: nested keys or a JSON string.' })),
  phone_number_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Sending number; omitted → the workspace's first connected number." })),
  reply_to: Type.Optional(Type.String({ pattern: WAMID, maxLength: 256, description: 'wamid of the message this one replies to.' })),
  client_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Your own reference (an order id, …): stored, returned and filterable with GET ?client_reference=.' }))
})

export type SendMessageBody = Static<typeof SendMessageBodySchema>

export const SendMessageOkSchema = Type.Object({
  ok: Type.Literal(true),
  id: Type.String({ description: 'The log record: GET /api/messages.php?id= reads it back.' }),
  wamid: Type.String({ description: 'Upstream message id, starting with wamid.' }),
  status: Type.Literal('sent'),
  media_id: Type.Optional(Type.String({ description: 'A send that carried its file (multipart part `file`): the media id it was uploaded as.' }))
})

/** 202 to `Prefer: respond-async`: the message is stored and will be sent from the queue. */
export const SendMessageQueuedSchema = Type.Object({
  ok: Type.Literal(true),
  id: Type.String({ description: 'The message\'s id (msg_…): GET /api/messages.php?id= follows it.' }),
  status: Type.Literal('queued'),
  media_id: Type.Optional(Type.String({ description: 'A send that carried its file: the media id it was uploaded as (before the 202).' }))
})

export const ErrorEnvelopeSchema = Type.Object({
  ok: Type.Literal(false),
  error: Type.String({ description: 'What went wrong, in words.' }),
  code: Type.String({ description: 'The error code: invalid_request, upstream_error, rate_limited, …' }),
  field: Type.Optional(Type.String({ description: 'The request field at fault (422).' })),
  id: Type.Optional(Type.String({ description: 'The log record this request created (502, 503 after a record).' })),
  frees_at: Type.Optional(Type.String({ description: 'When a locked template name can be used again (422 template_name_locked).' })),
  next_edit_at: Type.Optional(Type.String({ description: 'When an approved template can be edited again (422 template_edit_limit).' })),
  upstream: Type.Optional(Type.Object({
    code: Type.Integer({ description: 'The upstream\'s numeric error code, as a number (131026). A message read back with GET /api/messages.php gives the same code as a string in error.code ("131026"), a field that also holds our own codes ("expired").' }),
    message: Type.String({ description: 'The upstream\'s error message.' })
  }, { description: "The upstream's error (502 upstream_error), when it gave a code." }))
})

const RETRY_AFTER = Type.String({ description: 'Seconds to wait before retrying (429; 409 idempotency_in_progress; 503).' })

/** Headers of the error answers, as /docs lists them beside every /api route's 4xx and 5xx. */
export const ErrorHeaders = {
  '4xx': {
    'Retry-After': RETRY_AFTER,
    'WWW-Authenticate': Type.String({ description: '401: Bearer.' }),
    'RateLimit-Limit': Type.String({ description: '429: requests allowed per window for this key.' }),
    'RateLimit-Remaining': Type.String({ description: '429: requests left in the window (0).' }),
    'RateLimit-Reset': Type.String({ description: '429: seconds until the window resets.' }),
    Allow: Type.String({ description: '405: the methods the path accepts.' })
  },
  '5xx': { 'Retry-After': RETRY_AFTER }
}

/**
 * The send's request headers, documented for /docs; their values are checked by the handler
 * (src/idempotency/header.ts: a bad key is a 422 naming the header; src/messages/prefer.ts).
 */
export const SendHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'Idempotency-Key: 1–255 printable ASCII characters (a quoted structured-field string is accepted). A retry with the same key and the same message gets the stored answer for 24 h (IDEMPOTENCY_TTL_MS): same status, same body, header Idempotent-Replayed: true; nothing is sent twice. The same key with another message: 422 idempotency_mismatch; while the first is in flight: 409 idempotency_in_progress.' })),
  prefer: Type.Optional(Type.String({ description: 'Prefer: respond-async (RFC 7240) queues the message after the same checks and answers 202 with its id; the server sends it under the same pacing and retries. Other preferences are ignored.' }))
})

const REPLAYED = Type.String({ description: "'true' when the answer is the stored answer of an earlier request with the same Idempotency-Key." })

/** The send's answers as /docs lists them: the replay header beside each schema (@fastify/swagger reads `headers`). */
export const SendResponses = {
  200: { ...SendMessageOkSchema, description: 'Sent: the upstream accepted the message.', headers: { 'Idempotent-Replayed': REPLAYED } },
  202: {
    ...SendMessageQueuedSchema,
    description: 'With Prefer: respond-async: the message is stored, queued, and will be sent by the server; follow it at Location.',
    headers: {
      'Idempotent-Replayed': REPLAYED,
      'Preference-Applied': Type.String({ description: 'respond-async' }),
      Location: Type.String({ description: 'Where to read the message back: /api/messages.php?id=<id> (relative).' })
    }
  },
  '4xx': { ...ErrorEnvelopeSchema, description: '401, 403, 409 (no_active_connection; idempotency_in_progress with Retry-After), 413, 415, 422 (invalid_request; idempotency_mismatch; unsupported_media for a file part), 429', headers: { ...ErrorHeaders['4xx'], 'Idempotent-Replayed': REPLAYED } },
  '5xx': { ...ErrorEnvelopeSchema, description: '502 upstream_error / upstream_timeout / upstream_unavailable; 503 with Retry-After', headers: { ...ErrorHeaders['5xx'], 'Idempotent-Replayed': REPLAYED } }
}
