import { and, desc, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { messages, type MessageStatus } from '../../db/schema.js'

export type MessageRecord = typeof messages.$inferSelect

export function messageStore (db: Database) {
  return {
    /** Newest first. */
    async list (workspaceId: string, options: { status?: MessageStatus, limit?: number } = {}): Promise<MessageRecord[]> {
      const where = options.status
        ? and(eq(messages.workspaceId, workspaceId), eq(messages.status, options.status))
        : eq(messages.workspaceId, workspaceId)
      return await db.select().from(messages).where(where)
        .orderBy(desc(messages.createdAt), desc(messages.id)).limit(options.limit ?? 50)
    }
  }
}

export type MessageStore = ReturnType<typeof messageStore>

export function publicMessage (message: MessageRecord) {
  return {
    id: message.id,
    wamid: message.wamid,
    to: message.recipient,
    type: message.type,
    status: message.status,
    error_code: message.errorCode,
    attempts: message.attempts,
    created_at: message.createdAt.toISOString(),
    updated_at: message.updatedAt.toISOString()
  }
}
