import { Type } from '@sinclair/typebox'
import { ErrorEnvelopeSchema, ErrorHeaders, StringEnum } from '../messages/schemas.js'
import { MEDIA_KINDS } from './kinds.js'

const MEDIA_ID = '^[A-Za-z0-9_.-]{1,128}$'

const mediaFields = {
  ok: Type.Literal(true),
  media_id: Type.String({ description: 'The upstream\'s media id: send it as media_id.' }),
  type: StringEnum(MEDIA_KINDS, { description: 'The kind the file goes as, from its content.' }),
  mime_type: Type.Union([Type.String(), Type.Null()], { description: 'The type detected from the content (an upload) or the upstream\'s (inbound).' }),
  file_size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes; null for inbound media not fetched yet.' }),
  sha256: Type.Union([Type.String(), Type.Null()], { description: 'Lowercase hex SHA-256 of the bytes.' }),
  expires_at: Type.String({ description: 'When the upstream forgets the id: 30 days after an upload, 7 days after an inbound file arrived (a mirrored copy stays downloadable).' })
}

export const MediaUploadedSchema = Type.Object(mediaFields)

export const MediaReadSchema = Type.Object({
  ...mediaFields,
  origin: StringEnum(['upload', 'inbound'] as const, { description: 'uploaded here, or sent by a customer' }),
  stored: Type.Boolean({ description: 'Inbound: the mirror holds the bytes (downloads are served from it).' })
})

export const MediaQuerySchema = Type.Object({
  id: Type.String({ pattern: MEDIA_ID, description: 'The media id (an upload\'s media_id, or an inbound message\'s media.id).' }),
  download: Type.Optional(StringEnum(['0', '1', 'true', 'false'] as const, { description: '1: the bytes, with Content-Type, Content-Length and Content-Disposition.' }))
})

export const MediaErrors = {
  '4xx': { ...ErrorEnvelopeSchema, description: '401, 403, 404, 409, 413 (MEDIA_MAX_BYTES), 415, 422 (invalid_request; unsupported_media with field file), 429', headers: ErrorHeaders['4xx'] },
  '5xx': { ...ErrorEnvelopeSchema, description: '502 upstream_error / upstream_timeout / upstream_unavailable: the upstream failed the upload or download', headers: ErrorHeaders['5xx'] }
}
