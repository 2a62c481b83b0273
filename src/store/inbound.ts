import { desc, eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { inboundMessages } from '../../db/schema.js'
import { anyOf } from './any-of.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export type InboundMessage = typeof inboundMessages.$inferSelect

/** An inbound message as a delivery carries it, before it is routed to a workspace. */
export interface InboundEvent {
  wamid: string
  phoneNumberId: string
  from: string | null
  fromUserId: string | null
  type: string
  payload: unknown
  receivedAt: Date
}

export interface StoredInbound extends InboundEvent { id: string, workspaceId: string }

/** The workspace each of these numbers belongs to (the active connection's; the earliest if several). */
export async function routeNumbers (tx: Executor, phoneNumberIds: string[]): Promise<Map<string, string>> {
  if (phoneNumberIds.length === 0) return new Map()
  const result = await tx.execute(sql`
    select distinct on (p.phone_number_id) p.phone_number_id, p.workspace_id from phone_numbers p
    join connections c on c.id = p.connection_id and c.status = 'active'
    where p.phone_number_id = ${anyOf(phoneNumberIds)}
    order by p.phone_number_id, p.created_at`)
  return new Map(rowsOf<{ phone_number_id: string, workspace_id: string }>(result).map(row => [row.phone_number_id, row.workspace_id]))
}

/** Any number of inbound messages in one statement, each once per wamid (deliveries repeat); returns those new. */
export async function insertInbound (tx: Executor, messages: Array<InboundEvent & { workspaceId: string }>): Promise<StoredInbound[]> {
  if (messages.length === 0) return []
  const rows = messages.map(message => ({
    id: newId('in'), workspace_id: message.workspaceId, phone_number_id: message.phoneNumberId, wamid: message.wamid, from: message.from,
    from_user_id: message.fromUserId, type: message.type, payload: message.payload, received_at: message.receivedAt.toISOString()
  }))
  const result = await tx.execute(sql`
    insert into inbound_messages (id, workspace_id, phone_number_id, wamid, "from", from_user_id, type, payload, received_at)
    select id, workspace_id, phone_number_id, wamid, "from", from_user_id, type, payload, received_at
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(id text, workspace_id text, phone_number_id text, wamid text, "from" text,
      from_user_id text, type text, payload jsonb, received_at timestamptz)
    on conflict (wamid) do nothing
    returning id`)
  const stored = new Set(rowsOf<{ id: string }>(result).map(row => row.id))
  return rows.flatMap((row, index) => stored.has(row.id) ? [{ ...messages[index], id: row.id }] : [])
}

export function inboundStore (db: Database) {
  return {
    /** Stores an inbound message once per wamid (the upstream delivers at least once); false for a repeat. */
    async insert (message: Omit<typeof inboundMessages.$inferInsert, 'id' | 'createdAt'>): Promise<boolean> {
      const rows = await db.insert(inboundMessages).values({ id: newId('in'), ...message }).onConflictDoNothing().returning({ id: inboundMessages.id })
      return rows.length > 0
    },

    /** Newest first. */
    async list (workspaceId: string, options: { limit?: number } = {}): Promise<InboundMessage[]> {
      return await db.select().from(inboundMessages).where(eq(inboundMessages.workspaceId, workspaceId))
        .orderBy(desc(inboundMessages.receivedAt), desc(inboundMessages.id)).limit(options.limit ?? 50)
    }
  }
}

export type InboundStore = ReturnType<typeof inboundStore>
