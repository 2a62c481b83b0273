import { once } from 'node:events'
import type { Writable } from 'node:stream'
import type { MediaRow } from '../store/media.js'
import { upstreamFailure, type MediaDeps } from './deps.js'
import type { CheckedFile, CheckedStream, SpooledFile } from './intake.js'
import { extensionOf } from './kinds.js'
import type { Spool } from './storage.js'

/** Uploaded media live 30 days upstream (upstream-facts.md 1.4). */
export const UPLOAD_LIFE_MS = 30 * 24 * 60 * 60_000

/** Where an upload goes: the sending number, with its connection's token. */
export interface UploadTarget { workspaceId: string, phoneNumberId: string, token: string }

/** Streams a file to `POST /{phone-number-id}/media` as it is read (its size is within the limits by the request's length). */
export async function uploadStream (deps: MediaDeps, target: UploadTarget, stream: CheckedStream): Promise<MediaRow> {
  if (!deps.storage.storesUploads) return await upload(deps, target, stream.sniffed.mime, stream.filename, stream.bytes(), undefined, () => stream.checked())
  // spooled on the way up too: the file is stored (CONTRACT.md 22) once its SHA-256 is known
  const spool = await deps.storage.spool()
  try {
    return await upload(deps, target, stream.sniffed.mime, stream.filename, copied(stream.bytes(), spool.writable()), undefined, () => stream.checked(), spool)
  } finally {
    await spool.discard()
  }
}

/** Uploads a spooled file, every check done: `mime` may name it as the message's kind says (an MP4 as audio). The spool is stored after. */
export async function uploadSpooled (deps: MediaDeps, target: UploadTarget, spooled: SpooledFile, file: CheckedFile = spooled.file): Promise<MediaRow> {
  return await upload(deps, target, file.mime, file.filename, spooled.spool.readable(), file.size, () => file, deps.storage.storesUploads ? spooled.spool : undefined)
}

/** The bytes as they pass, written to `copy` too (its pace kept: a slow disk slows the upload, never fills memory). */
async function * copied (bytes: AsyncIterable<Buffer>, copy: Writable): AsyncGenerator<Buffer> {
  const failed = new Promise<never>((_resolve, reject) => copy.once('error', reject))
  failed.catch(() => {})
  try {
    for await (const chunk of bytes) {
      if (!copy.write(chunk)) await Promise.race([once(copy, 'drain'), failed])
      yield chunk
    }
    copy.end()
    await Promise.race([once(copy, 'finish'), failed])
  } finally {
    copy.destroy()
  }
}

async function upload (deps: MediaDeps, target: UploadTarget, mime: string, filename: string | undefined, bytes: AsyncIterable<Buffer>, size: number | undefined, checked: () => CheckedFile, keep?: Spool): Promise<MediaRow> {
  let mediaId: string
  try {
    mediaId = await deps.upstream.media.upload(target.phoneNumberId, target.token, { type: mime, filename: filename ?? `file.${extensionOf(mime)}`, bytes, size })
  } catch (error) {
    throw upstreamFailure(error, 'upload')
  }
  const file = checked()
  try {
    await keep?.keep(file.sha256)
  } catch (error) {
    // a file we could not store is not left upstream either: the client is told to try again (503)
    await deps.upstream.media.delete(mediaId, target.token).catch(() => {})
    throw error
  }
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
  if (keep) await deps.media.markStored(row.workspaceId, mediaId, { sha256: file.sha256, fileSize: file.size })
  deps.log.info({ mediaId, kind: file.kind, size: file.size }, 'media uploaded')
  return { ...row, storedAt: keep ? new Date() : null, mirrorError: null, createdAt: new Date(), contentPurgedAt: null }
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
