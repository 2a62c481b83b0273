import { and, desc, eq, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { messages, type MessageStatus } from '../../db/schema.js'

export type MessageRecord = typeof messages.$inferSelect
export type PendingMessage = Pick<typeof messages.$inferInsert, 'id' | 'workspaceId' | 'apiKeyId' | 'phoneNumberId' | 'recipient' | 'type' | 'payload' | 'dispatcherId'> & { id: string }

// `interrupted` is a presumption made for a process that stopped answering; what a send actually
// returns later (a slow process whose lease lapsed) replaces it.
const presumedInterrupted = sql`(${messages.status} = 'failed' and ${messages.errorCode} = 'interrupted')`
const stillOpen = or(eq(messages.status, 'pending'), presumedInterrupted)

export function messageStore (db: Database) {
  return {
    /** Newest first. */
    async list (workspaceId: string, options: { status?: MessageStatus, limit?: number } = {}): Promise<MessageRecord[]> {
      const where = options.status
        ? and(eq(messages.workspaceId, workspaceId), eq(messages.status, options.status))
        : eq(messages.workspaceId, workspaceId)
      return await db.select().from(messages).where(where)
        .orderBy(desc(messages.createdAt), desc(messages.id)).limit(options.limit ?? 50)
    },

    async get (id: string): Promise<MessageRecord | undefined> {
      const [row] = await db.select().from(messages).where(eq(messages.id, id))
      return row
    },

    /** The record of a send about to be attempted: written before anything goes upstream. */
    async createPending (message: PendingMessage): Promise<MessageRecord> {
      const [row] = await db.insert(messages).values({ ...message, status: 'pending' }).returning()
      return row
    },

    /** A status webhook may have moved the record on already (it is matched by id before the wamid is known): never move it back. */
    async markSent (id: string, outcome: { wamid: string, attempts: number }): Promise<void> {
      await db.update(messages).set({
        wamid: outcome.wamid,
        attempts: outcome.attempts,
        status: sql`case when ${messages.status} = 'pending' or ${presumedInterrupted} then 'sent' else ${messages.status} end`,
        errorCode: sql`case when ${presumedInterrupted} then null else ${messages.errorCode} end`,
        errorText: sql`case when ${presumedInterrupted} then null else ${messages.errorText} end`,
        updatedAt: new Date()
      }).where(eq(messages.id, id))
    },

    /** Only a record still pending fails: a webhook that already reported it sent or delivered knows better. */
    async markFailed (id: string, outcome: { errorCode: string, errorText: string, attempts: number }): Promise<void> {
      await db.update(messages).set({ status: 'failed', ...outcome, updatedAt: new Date() })
        .where(and(eq(messages.id, id), stillOpen))
    },

    /** Names the process dispatching a record that was created without it. */
    async claim (id: string, dispatcherId: string): Promise<void> {
      await db.update(messages).set({ dispatcherId }).where(and(eq(messages.id, id), eq(messages.status, 'pending')))
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
