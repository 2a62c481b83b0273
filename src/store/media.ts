import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { media } from '../../db/schema.js'
import type { Executor } from '../../db/client.js'

export type MediaRow = typeof media.$inferSelect
export type NewMediaRow = Omit<typeof media.$inferInsert, 'createdAt' | 'storedAt' | 'mirrorError'>

/** Inbound media rows in one statement (the intake's transaction), each once; returns the media ids that were new. */
export async function insertMediaRows (tx: Executor, rows: NewMediaRow[]): Promise<string[]> {
  if (rows.length === 0) return []
  const values = rows.map(row => ({
    workspace_id: row.workspaceId, media_id: row.mediaId, origin: row.origin, phone_number_id: row.phoneNumberId,
    inbound_message_id: row.inboundMessageId ?? null, kind: row.kind, mime_type: row.mimeType ?? null, file_size: row.fileSize ?? null,
    sha256: row.sha256 ?? null, filename: row.filename ?? null, expires_at: row.expiresAt.toISOString()
  }))
  const result = await tx.execute(sql`
    insert into media (workspace_id, media_id, origin, phone_number_id, inbound_message_id, kind, mime_type, file_size, sha256, filename, expires_at)
    select workspace_id, media_id, origin, phone_number_id, inbound_message_id, kind, mime_type, file_size, sha256, filename, expires_at
    from json_to_recordset(${JSON.stringify(values)}::json) as x(workspace_id text, media_id text, origin text, phone_number_id text,
      inbound_message_id text, kind text, mime_type text, file_size bigint, sha256 text, filename text, expires_at timestamptz)
    on conflict (workspace_id, media_id) do nothing
    returning media_id`)
  return rowsOf<{ media_id: string }>(result).map(row => row.media_id)
}

export function mediaStore (db: Database) {
  const key = (workspaceId: string, mediaId: string) => and(eq(media.workspaceId, workspaceId), eq(media.mediaId, mediaId))
  return {
    async insert (row: NewMediaRow): Promise<void> {
      await insertMediaRows(db, [row])
    },

    async remove (workspaceId: string, mediaId: string): Promise<void> {
      await db.delete(media).where(key(workspaceId, mediaId))
    },

    /** A workspace's media by the upstream's id; another workspace's is not found. */
    async find (workspaceId: string, mediaId: string): Promise<MediaRow | undefined> {
      const [row] = await db.select().from(media).where(key(workspaceId, mediaId))
      return row
    },

    /** The media that these inbound messages carried (the dashboard's list). */
    async ofInbound (workspaceId: string, inboundMessageIds: string[]): Promise<MediaRow[]> {
      if (inboundMessageIds.length === 0) return []
      return await db.select().from(media).where(and(eq(media.workspaceId, workspaceId), inArray(media.inboundMessageId, inboundMessageIds)))
    },

    /** The mirror stored the bytes: what it learnt about them comes with it. */
    async markStored (workspaceId: string, mediaId: string, bytes: { sha256: string, fileSize: number, mimeType?: string }): Promise<void> {
      await db.update(media).set({ storedAt: new Date(), mirrorError: null, sha256: bytes.sha256, fileSize: bytes.fileSize, mimeType: sql`coalesce(${media.mimeType}, ${bytes.mimeType ?? null})` })
        .where(key(workspaceId, mediaId))
    },

    async markMirrorFailed (workspaceId: string, mediaId: string, reason: string): Promise<void> {
      await db.update(media).set({ mirrorError: reason.slice(0, 500) }).where(and(key(workspaceId, mediaId), isNull(media.storedAt)))
    },

    /** What the upstream's media node said, when it was not known yet. */
    async learnSize (workspaceId: string, mediaId: string, fileSize: number): Promise<void> {
      await db.update(media).set({ fileSize }).where(and(key(workspaceId, mediaId), isNull(media.fileSize)))
    }
  }
}

export type MediaStore = ReturnType<typeof mediaStore>
