import type { Readable } from 'node:stream'
import { mediaChecksumMismatch, noActiveConnection, notFound } from '../errors.js'
import type { MediaRow } from '../store/media.js'
import { isGone, tokenOf, upstreamFailure, type MediaDeps } from './deps.js'
import { ChecksumMismatch, fetchChecked } from './fetch.js'
import { extensionOf } from './kinds.js'

/** A file on its way to the client: its bytes and what the headers say of them. */
export interface MediaDownload { stream: Readable, size: number | undefined, mimeType: string, filename: string }

/**
 * The bytes of a workspace's media: the mirror's copy when there is one; otherwise (MEDIA_MIRROR=off,
 * not mirrored yet, an upload) fetched from the upstream now, checked against its SHA-256 whole, then
 * streamed from the spool (docs/decisions/035-media-checksum.md).
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
    // bytes altered on the way may come right on a second fetch; never are wrong ones served
    const fetched = await fetchChecked(deps, row, token).catch(async (error: unknown) => {
      if (error instanceof ChecksumMismatch) return await fetchChecked(deps, row, token)
      throw error
    })
    if (row.fileSize === null) await deps.media.learnSize(row.workspaceId, row.mediaId, fetched.size).catch(async (error: unknown) => { await fetched.spool.discard(); throw error })
    const stream = fetched.spool.readable()
    stream.once('close', () => { void fetched.spool.discard() })
    return { stream, size: fetched.size, mimeType: row.mimeType ?? fetched.mimeType ?? 'application/octet-stream', filename }
  } catch (error) {
    if (error instanceof ChecksumMismatch) throw mediaChecksumMismatch()
    if (isGone(error)) throw notFound('The media expired upstream and no copy of it is stored')
    throw upstreamFailure(error, 'download')
  }
}

/** Content-Disposition for a file name a client gave: quoted ASCII, and the exact name in RFC 5987 form. */
export function contentDisposition (disposition: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}
