import type { Job } from '../work/jobs.js'
import type { MediaRow } from '../store/media.js'
import { isGone, tokenOf, type MediaDeps } from './deps.js'
import { fetchChecked } from './fetch.js'

const FIRST_RETRY_MS = 2000
const LONGEST_RETRY_MS = 60 * 60_000

/** Retries double from 2 s to an hour; the task itself stops once the id's 7 days are over. */
export function mirrorBackoff (attempt: number): number {
  const ceiling = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1))
  return Math.round(ceiling / 2 + Math.random() * ceiling / 2)
}
/** More than 7 days of retries at the longest delay: the expiry ends a job, not its attempts. */
export const MIRROR_MAX_ATTEMPTS = 200

/**
 * The mirror (a leased task on the work runner): an inbound file is fetched from the upstream
 * (`GET /{media-id}`, then its URL with the token), checked against the upstream's SHA-256 and
 * stored under it. A failure throws, and the runner retries; an id that is gone upstream (expired,
 * deleted) or past its 7 days ends the job, recorded on the row. Safe to repeat: storing the same
 * bytes twice leaves one file, and a file already stored is not fetched again.
 */
export function mirrorTask (deps: MediaDeps) {
  return async function mirrorMedia (job: Job): Promise<void> {
    const { workspaceId, mediaId } = JSON.parse(job.payload.toString('utf8')) as { workspaceId: string, mediaId: string }
    const row = await deps.media.find(workspaceId, mediaId)
    if (!row || row.storedAt) return
    // also a store that is down is found before anything is fetched (thrown: retried soon, CONTRACT.md 22)
    const stored = row.sha256 ? await deps.storage.stat(row.sha256) : undefined
    if (stored) {
      await deps.media.markStored(workspaceId, mediaId, { sha256: row.sha256!, fileSize: stored.size })
      return
    }
    if (Date.now() > row.expiresAt.getTime()) return await giveUp(deps, row, 'the media id expired upstream before it could be mirrored')
    const token = await tokenOf(deps, workspaceId)
    if (!token) throw new Error('the workspace has no active connection to fetch its media with')
    try {
      await fetchAndStore(deps, row, token)
    } catch (error) {
      if (isGone(error)) return await giveUp(deps, row, 'the media id no longer exists upstream')
      throw error
    }
  }
}

async function fetchAndStore (deps: MediaDeps, row: MediaRow, token: string): Promise<void> {
  // bytes that fail the upstream's SHA-256 throw: the runner tries again later
  const { spool, sha256, size, mimeType } = await fetchChecked(deps, row, token)
  await spool.keep(sha256)
  await deps.media.markStored(row.workspaceId, row.mediaId, { sha256, fileSize: size, mimeType })
  deps.log.info({ mediaId: row.mediaId, size }, 'inbound media mirrored')
}

async function giveUp (deps: MediaDeps, row: MediaRow, reason: string): Promise<void> {
  await deps.media.markMirrorFailed(row.workspaceId, row.mediaId, reason)
  deps.log.warn({ mediaId: row.mediaId, reason }, 'inbound media not mirrored')
}
