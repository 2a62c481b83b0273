import { desc, eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { inboundMessages } from '../../db/schema.js'
import { emitEvents, outboxCommitted } from '../events/outbox.js'
import { receivedEvent } from '../events/resources.js'
import { newId } from './ids.js'

export type InboundMessage = typeof inboundMessages.$inferSelect

export function inboundStore (db: Database) {
  return {
    /** Stores an inbound message once per wamid (the upstream delivers at least once); false for a repeat. */
    async insert (message: Omit<InboundMessage, 'id' | 'createdAt'>): Promise<boolean> {
      // stored with its message.received event, or not at all (CONTRACT.md 10)
      const stored = await db.transaction(async tx => {
        const rows = await tx.insert(inboundMessages).values({ id: newId('in'), ...message }).onConflictDoNothing().returning()
        await emitEvents(tx, rows.map(receivedEvent))
        return rows.length > 0
      })
      if (stored) outboxCommitted()
      return stored
    },

    /** Newest first. */
    async list (workspaceId: string, options: { limit?: number } = {}): Promise<InboundMessage[]> {
      return await db.select().from(inboundMessages).where(eq(inboundMessages.workspaceId, workspaceId))
        .orderBy(desc(inboundMessages.receivedAt), desc(inboundMessages.id)).limit(options.limit ?? 50)
    }
  }
}

export type InboundStore = ReturnType<typeof inboundStore>

export function publicInbound (message: InboundMessage) {
  return {
    id: message.id,
    wamid: message.wamid,
    from: message.from,
    type: message.type,
    phone_number_id: message.phoneNumberId,
    received_at: message.receivedAt.toISOString()
  }
}
