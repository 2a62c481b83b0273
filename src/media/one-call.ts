import { invalidRequest, unsupportedMedia } from '../errors.js'
import { MEDIA_TYPES, type MediaType, type SendMessageBody } from '../messages/schemas.js'
import type { PendingMessage } from '../store/messages.js'
import type { CheckedFile } from './intake.js'
import { asKind } from './sniff.js'

const article = (word: string) => /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`

/**
 * A send that carries its file (CONTRACT.md 13, one call): only for a media type, instead of
 * media_id and link, and the file's kind must be the message's type (a WebP goes only as a
 * sticker, a PDF only as a document). The file as it will go up (an MP4 sent as audio is audio/mp4).
 */
export function fileForMessage (body: SendMessageBody, file: CheckedFile): CheckedFile {
  const type = body.type ?? 'text'
  requireFileTaker(type)
  for (const field of ['media_id', 'link'] as const) {
    if (body[field] !== undefined) throw invalidRequest(`give the file or ${field}, not both`, 'file')
  }
  const sent = asKind(file, type as MediaType)
  if (sent.kind !== type) throw unsupportedMedia(`The file's content is ${file.mime}, which WhatsApp takes only as ${article(file.kind)}, not as ${article(type)}`)
  return sent
}

/**
 * A file part is only for a media message (CONTRACT.md 2): on any other the file is the request's
 * mistake whatever it holds, so this is decided from the type alone, before the file is read.
 * `type` as the form gave it (absent: text).
 */
export function requireFileTaker (type: unknown = 'text'): void {
  if (!(MEDIA_TYPES as readonly unknown[]).includes(type)) throw invalidRequest(`file is only for media messages (type ${MEDIA_TYPES.join(', ')}), not for type ${String(type)}`, 'file')
}

/**
 * The body as composed before the upload: the file's SHA-256 stands in for its media id, so that
 * an Idempotency-Key's fingerprint names the file by its bytes (the same file sent again is the same
 * message, whatever id a new upload would get).
 */
export function withFilePlaceholder (body: SendMessageBody, file: CheckedFile | undefined): SendMessageBody {
  if (!file) return body
  fileForMessage(body, file)
  return { ...body, media_id: `sha256:${file.sha256}` }
}

/** The record's payload with the uploaded file's media id in place of its placeholder. */
export function withMediaId (pending: PendingMessage, mediaId: string): PendingMessage {
  const payload = pending.payload as Record<string, Record<string, unknown>>
  return { ...pending, payload: { ...payload, [pending.type]: { ...payload[pending.type], id: mediaId } } }
}
