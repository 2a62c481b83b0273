import type { FastifyBaseLogger } from 'fastify'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { AppError } from '../errors.js'
import type { ConnectionStore } from '../store/connections.js'
import type { MediaStore } from '../store/media.js'
import type { UpstreamClient } from '../upstream/client.js'
import { UpstreamError } from '../upstream/errors.js'
import type { MediaStorage } from './storage.js'

/** What the media room works with: its rows, its storage, the upstream and the connections' tokens. */
export interface MediaDeps {
  media: MediaStore
  storage: MediaStorage
  upstream: UpstreamClient
  cipher: TokenCipher
  connections: ConnectionStore
  log: FastifyBaseLogger
  /** MEDIA_MAX_BYTES */
  maxBytes: number
}

/** The decrypted access token of the workspace's active connection, if it has one. */
export async function tokenOf (deps: Pick<MediaDeps, 'connections' | 'cipher'>, workspaceId: string): Promise<string | undefined> {
  const active = await deps.connections.active(workspaceId)
  return active && deps.cipher.decrypt(active.connection.accessToken)
}

/** The id no longer exists upstream (expired or deleted): Graph's "object does not exist" (100/33), or a 404. */
export function isGone (error: unknown): boolean {
  if (!(error instanceof UpstreamError) || error.kind !== 'rejected') return false
  return (error.details.code === 100 && error.details.subcode === 33) || error.details.httpStatus === 404
}

/** An upstream media call that failed, as the 502 the client gets (nothing was stored). */
export function upstreamFailure (error: unknown, what: string): unknown {
  if (!(error instanceof UpstreamError)) return error
  const { code, detail } = error.details
  const text = detail && !error.message.includes(detail) ? `${error.message}: ${detail}` : error.message
  if (error.kind === 'rejected') return new AppError(502, 'upstream_error', `The upstream refused the ${what}: ${text}`, code !== undefined ? { upstream: { code, message: error.message } } : {})
  return new AppError(502, error.envelopeCode, `The ${what} failed: ${text}`)
}
