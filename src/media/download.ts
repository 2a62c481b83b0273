import type { Readable } from 'node:stream'
import { mediaChecksumMismatch, noActiveConnection, notFound } from '../errors.js'
import type { MediaRow } from '../store/media.js'
import { isGone, tokenOf, upstreamFailure, type MediaDeps } from './deps.js'
import { ChecksumMismatch, fetchChecked } from './fetch.js'
import { declaredType, extensionOf, KIND_OF_TYPE } from './kinds.js'

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

/**
 * The headers a file goes out with, from the API and the dashboard alike (CONTRACT.md 13): a customer
 * chose its type, so only a type of the upstream's media table is served as itself; and none of it
 * is ever run as a page of our origin (nosniff, a sandbox CSP).
 */
export function downloadHeaders (file: MediaDownload, disposition: 'inline' | 'attachment'): Record<string, string> {
  return {
    'content-type': servedType(file.mimeType),
    ...(file.size !== undefined && { 'content-length': String(file.size) }),
    'content-disposition': contentDisposition(disposition, file.filename),
    'x-content-type-options': 'nosniff',
    'content-security-policy': 'sandbox'
  }
}

/** A type of upstream-facts.md 3.6 as its bare name (`audio/ogg; codecs=opus` → `audio/ogg`); any other as application/octet-stream. */
export function servedType (mimeType: string): string {
  const type = declaredType(mimeType)
  return type !== undefined && KIND_OF_TYPE[type] !== undefined ? type : 'application/octet-stream'
}

/** Content-Disposition for a file name a client gave: quoted ASCII, and the exact name in RFC 5987 form. */
export function contentDisposition (disposition: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}
