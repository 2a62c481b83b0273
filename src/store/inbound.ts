import { and, desc, eq, gte, isNull, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { inboundMessages } from '../../db/schema.js'
import { anyOf } from './any-of.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export type InboundMessage = typeof inboundMessages.$inferSelect
/** What marking a message read needs of it (and a read-mark job carries). */
export type MarkedMessage = Pick<InboundMessage, 'id' | 'workspaceId' | 'phoneNumberId' | 'wamid' | 'from' | 'fromUserId' | 'receivedAt'>

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

/** GET /api/inbound.php's list filters (CONTRACT.md 19); `after`: the previous page's last message. */
export interface InboundFilters {
  from?: string
  recipient?: string
  phoneNumberId?: string
  type?: string
  since?: Date
  limit: number
  after?: Keyset
}

/** A row's place in a newest-first list: its time as UTC text with microseconds (sorts as it reads), then its id. */
export interface Keyset { at: string, id: string }

/** A time column as sortable UTC text with the database's microseconds (a Date would drop them). */
export const keysetTime = (column: AnyColumn) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** The person of an inbound message: its sender's number, else its business-scoped user id (a conversation's `person`). */
export const personOf = (message: Pick<InboundMessage, 'from' | 'fromUserId'>): string => message.from ?? message.fromUserId ?? ''

export type InboundPageRow = InboundMessage & { at: string }

export function inboundStore (db: Database) {
  const byPerson = (person: string) => sql`coalesce(${inboundMessages.from}, ${inboundMessages.fromUserId}) = ${person}`
  return {
    async find (workspaceId: string, by: { id?: string, wamid?: string }): Promise<InboundMessage | undefined> {
      const match = by.id !== undefined ? eq(inboundMessages.id, by.id) : eq(inboundMessages.wamid, by.wamid ?? '')
      const [row] = await db.select().from(inboundMessages).where(and(match, eq(inboundMessages.workspaceId, workspaceId)))
      return row
    },

    /** Newest first by (received_at, id), each page strictly after the previous one's last message. */
    async page (workspaceId: string, filters: InboundFilters): Promise<{ rows: InboundPageRow[], more: boolean }> {
      const conditions: SQL[] = [eq(inboundMessages.workspaceId, workspaceId)]
      if (filters.from !== undefined) conditions.push(eq(inboundMessages.from, filters.from))
      if (filters.recipient !== undefined) conditions.push(eq(inboundMessages.fromUserId, filters.recipient))
      if (filters.phoneNumberId !== undefined) conditions.push(eq(inboundMessages.phoneNumberId, filters.phoneNumberId))
      if (filters.type !== undefined) conditions.push(eq(inboundMessages.type, filters.type))
      if (filters.since !== undefined) conditions.push(gte(inboundMessages.receivedAt, filters.since))
      if (filters.after) conditions.push(sql`(${inboundMessages.receivedAt}, ${inboundMessages.id}) < (${filters.after.at}::timestamptz, ${filters.after.id})`)
      const rows = await db.select({ message: inboundMessages, at: keysetTime(inboundMessages.receivedAt) }).from(inboundMessages).where(and(...conditions))
        .orderBy(desc(inboundMessages.receivedAt), desc(inboundMessages.id)).limit(filters.limit + 1)
      return { rows: rows.slice(0, filters.limit).map(row => ({ ...row.message, at: row.at })), more: rows.length > filters.limit }
    },

    /**
     * Marks each message read and, as a phone does, the same person's earlier unread messages to
     * that number, in one statement for them all; each message's read_at, in order (an earlier one's
     * when it was read already: the statement reads the table as it was before its update).
     */
    async markRead (marks: Array<{ message: Pick<MarkedMessage, 'id'>, at: Date }>): Promise<Date[]> {
      if (marks.length === 0) return []
      const rows = marks.map(({ message, at }, n) => ({ n, id: message.id, at: at.toISOString() }))
      const result = rowsOf<{ n: number, read_at: Date | string | null }>(await db.execute(sql`
        with v as (select * from json_to_recordset(${JSON.stringify(rows)}::json) as v(n int, id text, at timestamptz)),
          -- each marked message's person's unread messages up to it (its time as stored, to the
          -- microsecond), by the unread index (offset 0 keeps the lookup per person: joined to the
          -- JSON, the planner read every unread message of the table, 25 ms at 100,000), then
          -- updated by primary key
          targets as materialized (select t.id, v.at from v join ${inboundMessages} m on m.id = v.id cross join lateral (select x.id from ${inboundMessages} x
            where x.workspace_id = m.workspace_id and x.phone_number_id = m.phone_number_id and coalesce(x."from", x.from_user_id) = coalesce(m."from", m.from_user_id)
              and x.read_at is null and x.received_at <= m.received_at offset 0) t),
          marked as (update ${inboundMessages} i set read_at = t.at from targets t where i.id = any(array(select id from targets)) and i.id = t.id)
        select v.n, (select x.read_at from ${inboundMessages} x where x.id = v.id) as read_at from v order by v.n`))
      const earlier = new Map(result.map(row => [Number(row.n), row.read_at]))
      return marks.map(({ at }, n) => { const was = earlier.get(n); return was ? new Date(was) : at })
    },

    /** The person's latest unread message to the number, if any; of two in the same second (the upstream's times are whole seconds), the later stored. */
    async latestUnread (workspaceId: string, phoneNumberId: string, person: string): Promise<InboundMessage | undefined> {
      const [row] = await db.select().from(inboundMessages).where(and(eq(inboundMessages.workspaceId, workspaceId),
        eq(inboundMessages.phoneNumberId, phoneNumberId), byPerson(person), isNull(inboundMessages.readAt)))
        .orderBy(desc(inboundMessages.receivedAt), desc(inboundMessages.id)).limit(1)
      return row
    },

    /**
     * The latest unread message of each of these people to the number, in one statement for them all
     * (on_reply's read marks, CONTRACT.md 19), as latestUnread picks it; only a conversation that counts an unread message is looked into.
     */
    async latestUnreadOf (people: Array<{ workspaceId: string, phoneNumberId: string, person: string }>): Promise<MarkedMessage[]> {
      if (people.length === 0) return []
      const keys = people.map(one => ({ workspace_id: one.workspaceId, phone_number_id: one.phoneNumberId, person: one.person }))
      const rows = rowsOf<{ id: string, workspace_id: string, phone_number_id: string, wamid: string, from: string | null, from_user_id: string | null, received_at: string }>(await db.execute(sql`
        select u.id, u.workspace_id, u.phone_number_id, u.wamid, u."from", u.from_user_id, to_char(u.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as received_at
        from json_to_recordset(${JSON.stringify(keys)}::json) as k(workspace_id text, phone_number_id text, person text)
        join conversations c on c.workspace_id = k.workspace_id and c.phone_number_id = k.phone_number_id and c.person = k.person and c.unread > 0
        cross join lateral (select i.* from ${inboundMessages} i where i.workspace_id = k.workspace_id and i.phone_number_id = k.phone_number_id
          and coalesce(i."from", i.from_user_id) = k.person and i.read_at is null order by i.received_at desc, i.id desc limit 1) u`))
      return rows.map(row => ({ id: row.id, workspaceId: row.workspace_id, phoneNumberId: row.phone_number_id, wamid: row.wamid, from: row.from, fromUserId: row.from_user_id, receivedAt: new Date(row.received_at) }))
    },

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
