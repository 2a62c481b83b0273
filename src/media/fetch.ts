import { createHash } from 'node:crypto'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { MediaRow } from '../store/media.js'
import type { MediaDeps } from './deps.js'
import { hexDigest } from './inbound.js'
import type { Spool } from './storage.js'

// No WhatsApp file is larger (inbound files over 100 MB are not delivered: 131052).
const LARGEST_BYTES = 128 * 1024 * 1024

/** The upstream's copy of a media, spooled whole and checked: the caller keeps it, or reads it and discards it. */
export interface FetchedMedia { spool: Spool, sha256: string, size: number, mimeType: string | undefined }

/** The bytes the upstream sent are not the ones its SHA-256 names (cut short or altered on the way): they were discarded. */
export class ChecksumMismatch extends Error {
  constructor () { super('the downloaded bytes do not match the upstream\'s SHA-256') }
}

/**
 * `GET /{media-id}`, then its URL with the token, spooled while hashed; checked against the node's
 * SHA-256 (else the one the webhook gave). Bytes that fail the check are discarded before anyone sees
 * them: the mirror does not store them and a download does not serve them (CONTRACT.md 13).
 */
export async function fetchChecked (deps: MediaDeps, row: MediaRow, token: string): Promise<FetchedMedia> {
  const node = await deps.upstream.media.node(row.mediaId, token, row.phoneNumberId)
  const expected = hexDigest(node.sha256) ?? row.sha256
  const download = await deps.upstream.media.download(node.url, token)
  const hash = createHash('sha256')
  let size = 0
  const spool = await deps.storage.spool()
  try {
    await pipeline(download.stream, new Transform({
      transform (chunk: Buffer, _encoding, done) {
        size += chunk.length
        if (size > LARGEST_BYTES) return done(new Error(`the media is larger than ${LARGEST_BYTES} bytes`))
        hash.update(chunk)
        done(null, chunk)
      }
    }), spool.writable())
    const sha256 = hash.digest('hex')
    if (expected !== null && sha256 !== expected) throw new ChecksumMismatch()
    return { spool, sha256, size, mimeType: node.mime_type }
  } catch (error) {
    await spool.discard()
    throw error
  }
}
