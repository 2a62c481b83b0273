import type { StoredInbound } from '../store/inbound.js'
import type { Executor } from '../../db/client.js'
import { jobSql } from '../work/jobs.js'
import { insertMediaRows, type MediaRow, type NewMediaRow } from '../store/media.js'
import type { MediaKind } from './kinds.js'

export const MIRROR_QUEUE = 'media-mirror'
/** How long the upstream keeps a media id it sent in a webhook (upstream-facts.md 1.4). */
export const INBOUND_MEDIA_LIFE_MS = 7 * 24 * 60 * 60_000

// The inbound types that carry a file, and the kind each is (a voice note is audio).
const KIND_OF_INBOUND: Readonly<Record<string, MediaKind>> = { image: 'image', video: 'video', audio: 'audio', document: 'document', sticker: 'sticker', voice: 'audio' }

/** A file an inbound message carries, as the upstream's webhook describes it. */
export interface InboundFile { kind: MediaKind, id: string, mimeType: string | null, sha256: string | null, caption: string | null, filename: string | null }

/** The media of an inbound message (CONTRACT.md 13), in the API's and the events' shape. */
export interface InboundMediaView { id: string, mime_type: string | null, file_size: number | null, sha256: string | null, caption: string | null, filename: string | null, stored: boolean }

export function inboundFileOf (type: string, payload: unknown): InboundFile | undefined {
  const kind = KIND_OF_INBOUND[type]
  const part = kind && (payload as Record<string, unknown> | null)?.[type]
  if (typeof part !== 'object' || part === null) return undefined
  const { id, mime_type: mimeType, sha256, caption, filename } = part as Record<string, unknown>
  if (typeof id !== 'string' || !/^[\w.-]{1,128}$/.test(id)) return undefined
  return { kind, id, mimeType: text(mimeType, 255), sha256: hexDigest(sha256), caption: text(caption, 4096), filename: text(filename, 255) }
}

/** `media` of an inbound message: stored and file_size from its row once the mirror has run. */
export function inboundMediaView (file: InboundFile, row?: Pick<MediaRow, 'storedAt' | 'fileSize' | 'sha256' | 'mimeType'>): InboundMediaView {
  return {
    id: file.id,
    mime_type: row?.mimeType ?? file.mimeType,
    file_size: row?.fileSize ?? null,
    sha256: row?.sha256 ?? file.sha256,
    caption: file.caption,
    filename: file.filename,
    stored: Boolean(row?.storedAt)
  }
}

/**
 * In the intake's transaction: a row for each new inbound file, and with the mirror on a job to
 * download it (src/media/mirror.ts), so a stored message is never left without its mirror.
 */
export async function recordInboundMedia (tx: Executor, inbound: StoredInbound[], options: { mirror: boolean }): Promise<void> {
  const rows: NewMediaRow[] = []
  for (const message of inbound) {
    const file = inboundFileOf(message.type, message.payload)
    if (!file) continue
    rows.push({
      workspaceId: message.workspaceId,
      mediaId: file.id,
      origin: 'inbound',
      phoneNumberId: message.phoneNumberId,
      inboundMessageId: message.id,
      kind: file.kind,
      mimeType: file.mimeType,
      sha256: file.sha256,
      filename: file.filename,
      // counted from our receipt: the upstream's clock and ours may differ, and a late delivery has less left
      expiresAt: new Date(Date.now() + INBOUND_MEDIA_LIFE_MS)
    })
  }
  const created = new Set(await insertMediaRows(tx, rows))
  if (!options.mirror || created.size === 0) return
  await jobSql.enqueue(tx, rows.filter(row => created.has(row.mediaId)).map(row => ({
    queue: MIRROR_QUEUE,
    payload: JSON.stringify({ workspaceId: row.workspaceId, mediaId: row.mediaId })
  })))
}

/** Lowercase hex of a SHA-256 given in base64 (webhooks) or hex (media nodes); null for anything else. */
export function hexDigest (value: unknown): string | null {
  if (typeof value !== 'string') return null
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase()
  const bytes = /^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined
  return bytes?.length === 32 ? bytes.toString('hex') : null
}

function text (value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, max) : null
}
