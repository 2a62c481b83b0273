import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { conversations, inboundMessages, messages, templates, workspaces, type ReadReceipts } from '../../db/schema.js'
import { isUserId } from '../resources/recipient.js'
import { keysetTime, type InboundPageRow, type Keyset } from './inbound.js'
import { MESSAGE_COLUMNS, type MessageRow } from './message-reads.js'

export type Conversation = typeof conversations.$inferSelect
export type ConversationRow = Conversation & { at: string }

/** A conversation's place in the list: (last_at, phone_number_id, person), newest first. */
export interface ConversationKeyset { at: string, phoneNumberId: string, person: string }

export type ThreadItem = { direction: 'outbound', at: string, row: MessageRow } | { direction: 'inbound', at: string, row: InboundPageRow }

/** What a reply's `context.id` may name: one of the workspace's sent messages, or one it received. */
export interface RepliedOutbound { id: string, wamid: string, type: string, payload: unknown, campaignId: string | null, clientReference: string | null, workspaceId: string }
export interface RepliedInbound { id: string, wamid: string, type: string, payload: unknown }

type Executor = Pick<Database, 'select'>

/** Section 19's reads (CONTRACT.md): the conversations' rows, a thread both ways, what a reply answers. */
export function conversationStore (db: Database) {
  return {
    /** Most recently active first; never reads the messages (the rows are kept by triggers: db/schema.ts). */
    async list (workspaceId: string, options: { phoneNumberId?: string, limit: number, after?: ConversationKeyset }): Promise<{ rows: ConversationRow[], more: boolean }> {
      const conditions: SQL[] = [eq(conversations.workspaceId, workspaceId)]
      if (options.phoneNumberId !== undefined) conditions.push(eq(conversations.phoneNumberId, options.phoneNumberId))
      const after = options.after
      if (after) conditions.push(sql`(${conversations.lastAt}, ${conversations.phoneNumberId}, ${conversations.person}) < (${after.at}::timestamptz, ${after.phoneNumberId}, ${after.person})`)
      const rows = await db.select({ conversation: conversations, at: keysetTime(conversations.lastAt) }).from(conversations).where(and(...conditions))
        .orderBy(desc(conversations.lastAt), desc(conversations.phoneNumberId), desc(conversations.person)).limit(options.limit + 1)
      return { rows: rows.slice(0, options.limit).map(row => ({ ...row.conversation, at: row.at })), more: rows.length > options.limit }
    },

    async one (workspaceId: string, phoneNumberId: string, person: string): Promise<Conversation | undefined> {
      const [row] = await db.select().from(conversations).where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.phoneNumberId, phoneNumberId), eq(conversations.person, person)))
      return row
    },

    /**
     * A thread, newest first, both ways: the page's worth of each side by its own index, merged.
     * `person` is a phone number's digits or a user id; `after` the previous page's last item.
     */
    async thread (workspaceId: string, person: string, options: { phoneNumberId?: string, limit: number, after?: Keyset }): Promise<{ items: ThreadItem[], more: boolean }> {
      const { after, limit } = options
      const out: SQL[] = [eq(messages.workspaceId, workspaceId), eq(messages.recipient, person)]
      const into: SQL[] = [eq(inboundMessages.workspaceId, workspaceId), isUserId(person) ? eq(inboundMessages.fromUserId, person) : eq(inboundMessages.from, person)]
      if (options.phoneNumberId !== undefined) {
        out.push(eq(messages.phoneNumberId, options.phoneNumberId))
        into.push(eq(inboundMessages.phoneNumberId, options.phoneNumberId))
      }
      if (after) {
        out.push(sql`(${messages.createdAt}, ${messages.id}) < (${after.at}::timestamptz, ${after.id})`)
        into.push(sql`(${inboundMessages.receivedAt}, ${inboundMessages.id}) < (${after.at}::timestamptz, ${after.id})`)
      }
      const [sent, received] = await Promise.all([
        db.select({ row: MESSAGE_COLUMNS, at: keysetTime(messages.createdAt) }).from(messages).where(and(...out))
          .orderBy(desc(messages.createdAt), desc(messages.id)).limit(limit + 1),
        db.select({ row: inboundMessages, at: keysetTime(inboundMessages.receivedAt) }).from(inboundMessages).where(and(...into))
          .orderBy(desc(inboundMessages.receivedAt), desc(inboundMessages.id)).limit(limit + 1)
      ])
      const items: ThreadItem[] = [
        ...sent.map(({ row, at }) => ({ direction: 'outbound' as const, at, row })),
        ...received.map(({ row, at }) => ({ direction: 'inbound' as const, at, row: { ...row, at } }))
      ].sort((a, b) => a.at === b.at ? (a.row.id < b.row.id ? 1 : -1) : (a.at < b.at ? 1 : -1))
      return { items: items.slice(0, limit), more: items.length > limit }
    },

    /** The upstream bodies of these records (the dashboard shows what was sent; the API never does). */
    async payloadsOf (workspaceId: string, ids: string[]): Promise<Map<string, { type: string, payload: unknown }>> {
      if (ids.length === 0) return new Map()
      const rows = await db.select({ id: messages.id, type: messages.type, payload: messages.payload }).from(messages).where(and(eq(messages.workspaceId, workspaceId), inArray(messages.id, ids)))
      return new Map(rows.map(row => [row.id, row]))
    },

    /** Whether a message was written to the person from the number since then (a typing indicator's reply: CONTRACT.md 19). */
    async answeredSince (workspaceId: string, phoneNumberId: string, person: string, since: Date): Promise<boolean> {
      const rows = await db.select({ id: messages.id }).from(messages).where(and(eq(messages.workspaceId, workspaceId), eq(messages.phoneNumberId, phoneNumberId),
        eq(messages.recipient, person), sql`${messages.createdAt} > ${since.toISOString()}::timestamptz`)).limit(1)
      return rows.length > 0
    },

    /** The workspaces among these whose policy is `on_receipt`. */
    async markingOnReceipt (on: Pick<Database, 'select'>, workspaceIds: string[]): Promise<Set<string>> {
      if (workspaceIds.length === 0) return new Set()
      const rows = await on.select({ id: workspaces.id }).from(workspaces).where(and(inArray(workspaces.id, [...new Set(workspaceIds)]), eq(workspaces.readReceipts, 'on_receipt')))
      return new Set(rows.map(row => row.id))
    },

    async readReceipts (workspaceId: string): Promise<ReadReceipts | undefined> {
      const [row] = await db.select({ readReceipts: workspaces.readReceipts }).from(workspaces).where(eq(workspaces.id, workspaceId))
      return row?.readReceipts
    }
  }
}

/** The workspace's messages these wamids name, both ways (in the intake's transaction or outside it). */
export async function repliedTo (on: Executor, workspaceId: string, wamids: string[]): Promise<{ outbound: RepliedOutbound[], inbound: RepliedInbound[] }> {
  if (wamids.length === 0) return { outbound: [], inbound: [] }
  const [outbound, inbound] = await Promise.all([
    on.select({ id: messages.id, wamid: sql<string>`${messages.wamid}`, type: messages.type, payload: messages.payload, campaignId: messages.campaignId, clientReference: messages.clientReference, workspaceId: messages.workspaceId })
      .from(messages).where(and(inArray(messages.wamid, wamids), eq(messages.workspaceId, workspaceId))),
    on.select({ id: inboundMessages.id, wamid: inboundMessages.wamid, type: inboundMessages.type, payload: inboundMessages.payload })
      .from(inboundMessages).where(and(inArray(inboundMessages.wamid, wamids), eq(inboundMessages.workspaceId, workspaceId)))
  ])
  return { outbound, inbound }
}

/** The catalog's components of these templates (a reply to a template shows its body with the values filled in). */
export async function templateComponents (on: Executor, workspaceId: string, named: Array<{ name: string, language: string }>): Promise<Map<string, unknown[]>> {
  if (named.length === 0) return new Map()
  const rows = await on.select({ name: templates.name, language: templates.language, components: templates.components }).from(templates)
    .where(and(eq(templates.workspaceId, workspaceId), inArray(templates.name, [...new Set(named.map(one => one.name))])))
  return new Map(rows.map(row => [`${row.name}\u0000${row.language}`, row.components]))
}

export type ConversationStore = ReturnType<typeof conversationStore>
