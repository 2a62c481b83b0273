import type { MediaRow } from '../store/media.js'
import { upstreamFailure, type MediaDeps } from './deps.js'
import type { CheckedFile, CheckedStream, SpooledFile } from './intake.js'
import { extensionOf } from './kinds.js'

/** Uploaded media live 30 days upstream (upstream-facts.md 1.4). */
export const UPLOAD_LIFE_MS = 30 * 24 * 60 * 60_000

/** Where an upload goes: the sending number, with its connection's token. */
export interface UploadTarget { workspaceId: string, phoneNumberId: string, token: string }

/** Streams a file to `POST /{phone-number-id}/media` as it is read (its size is within the limits by the request's length). */
export async function uploadStream (deps: MediaDeps, target: UploadTarget, stream: CheckedStream): Promise<MediaRow> {
  return await upload(deps, target, stream.sniffed.mime, stream.filename, stream.bytes(), undefined, () => stream.checked())
}

/** Uploads a spooled file, every check done: `mime` may name it as the message's kind says (an MP4 as audio). */
export async function uploadSpooled (deps: MediaDeps, target: UploadTarget, spooled: SpooledFile, file: CheckedFile = spooled.file): Promise<MediaRow> {
  return await upload(deps, target, file.mime, file.filename, spooled.spool.readable(), file.size, () => file)
}

async function upload (deps: MediaDeps, target: UploadTarget, mime: string, filename: string | undefined, bytes: AsyncIterable<Buffer>, size: number | undefined, checked: () => CheckedFile): Promise<MediaRow> {
  let mediaId: string
  try {
    mediaId = await deps.upstream.media.upload(target.phoneNumberId, target.token, { type: mime, filename: filename ?? `file.${extensionOf(mime)}`, bytes, size })
  } catch (error) {
    throw upstreamFailure(error, 'upload')
  }
  const file = checked()
  const row = {
    workspaceId: target.workspaceId,
    mediaId,
    origin: 'upload' as const,
    phoneNumberId: target.phoneNumberId,
    inboundMessageId: null,
    kind: file.kind,
    mimeType: mime,
    fileSize: file.size,
    sha256: file.sha256,
    filename: filename ?? null,
    expiresAt: new Date(Date.now() + UPLOAD_LIFE_MS)
  }
  await deps.media.insert(row)
  deps.log.info({ mediaId, kind: file.kind, size: file.size }, 'media uploaded')
  return { ...row, storedAt: null, mirrorError: null, createdAt: new Date(), contentPurgedAt: null }
}

/** A media row as the API shows it (CONTRACT.md 13): `sha256` in lowercase hex. */
export function mediaResource (row: MediaRow) {
  return {
    media_id: row.mediaId,
    type: row.kind as 'image' | 'video' | 'audio' | 'document' | 'sticker',
    mime_type: row.mimeType,
    file_size: row.fileSize,
    sha256: row.sha256,
    expires_at: row.expiresAt.toISOString()
  }
}
