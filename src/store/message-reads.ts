import { and, desc, eq, gte, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { messages, type MessageRecord, type MessageStatus } from '../../db/schema.js'

// every column but the payload: a read never returns the message's content
export const MESSAGE_COLUMNS = {
  id: messages.id,
  wamid: messages.wamid,
  recipient: messages.recipient,
  phoneNumberId: messages.phoneNumberId,
  type: messages.type,
  status: messages.status,
  errorCode: messages.errorCode,
  errorText: messages.errorText,
  attempts: messages.attempts,
  clientReference: messages.clientReference,
  idempotencyKey: messages.idempotencyKey,
  sentAt: messages.sentAt,
  failedAt: messages.failedAt,
  queuedAt: messages.queuedAt,
  sendingAt: messages.sendingAt,
  createdAt: messages.createdAt,
  updatedAt: messages.updatedAt,
  heldReason: messages.heldReason,
  pricing: messages.pricing,
  contentPurgedAt: messages.contentPurgedAt,
  erased: messages.erased
}

export type MessageRow = Pick<MessageRecord, keyof typeof MESSAGE_COLUMNS>

export interface MessageFilters {
  /** `held`: queued and held for a reason (CONTRACT.md 14); `queued`: queued and not held */
  status?: MessageStatus | 'held'
  to?: string
  /** the record's `recipient` holds a user id as it holds a phone number (src/resources/recipient.ts) */
  recipientUserId?: string
  since?: Date
  clientReference?: string
  campaignId?: string
  limit: number
  /** the id of the last message of the previous page */
  after?: string
}

/** GET /api/messages.php's reads, always within one workspace: another workspace's message does not exist. */
export function messageReads (db: Database) {
  return {
    async find (workspaceId: string, by: { id?: string, wamid?: string }): Promise<MessageRow | undefined> {
      const match = by.id !== undefined ? eq(messages.id, by.id) : eq(messages.wamid, by.wamid ?? '')
      const [row] = await db.select(MESSAGE_COLUMNS).from(messages).where(and(match, eq(messages.workspaceId, workspaceId)))
      return row
    },

    /**
     * Newest first, by the keyset (created_at, id): a page starts strictly after the previous page's
     * last message, so rows inserted meanwhile cause neither duplicates nor gaps, and no OFFSET is
     * scanned. undefined when `after` names no message of the workspace.
     */
    async page (workspaceId: string, filters: MessageFilters): Promise<{ rows: MessageRow[], more: boolean } | undefined> {
      const conditions: SQL[] = [eq(messages.workspaceId, workspaceId)]
      if (filters.status === 'held') conditions.push(sql`${messages.status} = 'queued' and ${messages.heldReason} is not null`)
      else if (filters.status === 'queued') conditions.push(sql`${messages.status} = 'queued' and ${messages.heldReason} is null`)
      else if (filters.status) conditions.push(eq(messages.status, filters.status))
      if (filters.to) conditions.push(eq(messages.recipient, filters.to))
      if (filters.recipientUserId) conditions.push(eq(messages.recipient, filters.recipientUserId))
      if (filters.since) conditions.push(gte(messages.createdAt, filters.since))
      if (filters.clientReference) conditions.push(eq(messages.clientReference, filters.clientReference))
      if (filters.campaignId) conditions.push(eq(messages.campaignId, filters.campaignId))
      if (filters.after) {
        // the anchor's time as text: a Date would drop the database's microseconds
        const [anchor] = await db.select({ at: sql<string>`${messages.createdAt}::text` }).from(messages)
          .where(and(eq(messages.id, filters.after), eq(messages.workspaceId, workspaceId)))
        if (!anchor) return undefined
        conditions.push(sql`(${messages.createdAt}, ${messages.id}) < (${anchor.at}::timestamptz, ${filters.after})`)
      }
      const rows = await db.select(MESSAGE_COLUMNS).from(messages).where(and(...conditions))
        .orderBy(desc(messages.createdAt), desc(messages.id)).limit(filters.limit + 1)
      return { rows: rows.slice(0, filters.limit), more: rows.length > filters.limit }
    }
  }
}

export type MessageReads = ReturnType<typeof messageReads>
