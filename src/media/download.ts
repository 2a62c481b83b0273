import type { Readable } from 'node:stream'
import { noActiveConnection, notFound } from '../errors.js'
import type { MediaRow } from '../store/media.js'
import { isGone, tokenOf, upstreamFailure, type MediaDeps } from './deps.js'
import { extensionOf } from './kinds.js'

/** A file on its way to the client: its bytes and what the headers say of them. */
export interface MediaDownload { stream: Readable, size: number | undefined, mimeType: string, filename: string }

/**
 * The bytes of a workspace's media: the mirror's copy when there is one; otherwise (MEDIA_MIRROR=off,
 * not mirrored yet, an upload) fetched from the upstream now and streamed through as it comes.
 */
export async function openMedia (deps: MediaDeps, row: MediaRow): Promise<MediaDownload> {
  const filename = row.filename ?? `${row.mediaId}.${extensionOf(row.mimeType ?? '')}`
  if (row.storedAt && row.sha256) {
    const stored = await deps.storage.open(row.sha256)
    if (stored) return { stream: stored.stream, size: stored.size, mimeType: row.mimeType ?? 'application/octet-stream', filename }
  }
  const token = await tokenOf(deps, row.workspaceId)
  if (!token) throw noActiveConnection()
  try {
    const node = await deps.upstream.media.node(row.mediaId, token, row.phoneNumberId)
    const size = Number(node.file_size)
    if (row.fileSize === null && Number.isSafeInteger(size)) await deps.media.learnSize(row.workspaceId, row.mediaId, size)
    const bytes = await deps.upstream.media.download(node.url, token)
    return { stream: bytes.stream, size: bytes.contentLength ?? (Number.isSafeInteger(size) ? size : undefined), mimeType: row.mimeType ?? node.mime_type ?? 'application/octet-stream', filename }
  } catch (error) {
    if (isGone(error)) throw notFound('The media expired upstream and no copy of it is stored')
    throw upstreamFailure(error, 'download')
  }
}

/** Content-Disposition for a file name a client gave: quoted ASCII, and the exact name in RFC 5987 form. */
export function contentDisposition (disposition: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}
