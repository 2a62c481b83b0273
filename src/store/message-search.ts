import { and, desc, eq, gte, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { messages, type MessageStatus } from '../../db/schema.js'
import { OPEN_STATUSES, REACHED_STATUSES, sqlStatuses } from '../resources/message-status.js'
import { isUserId } from '../resources/recipient.js'
import type { MessageRecord } from './messages.js'

export interface MessageQuery {
  status?: MessageStatus
  /** a wamid, a message id, digits of the recipient, or a business-scoped user id */
  search?: string
  /** the id of the last message of the previous page */
  before?: string
  limit: number
}

export interface ReachedCounts { waiting: number, sent: number, delivered: number, read: number, failed: number }

/** The dashboard's reads of the message log, always within one workspace. */
export function messageSearch (db: Database) {
  return {
    /** Newest first. */
    async list (workspaceId: string, query: MessageQuery): Promise<MessageRecord[]> {
      const conditions: (SQL | undefined)[] = [eq(messages.workspaceId, workspaceId)]
      if (query.status) conditions.push(eq(messages.status, query.status))
      if (query.search) conditions.push(searchCondition(query.search))
      if (query.before) {
        conditions.push(sql`(${messages.createdAt}, ${messages.id}) < (select created_at, id from messages where id = ${query.before})`)
      }
      return await db.select().from(messages).where(and(...conditions))
        .orderBy(desc(messages.createdAt), desc(messages.id)).limit(query.limit)
    },

    /** undefined for another workspace's message: to its caller it does not exist. */
    async get (workspaceId: string, id: string): Promise<MessageRecord | undefined> {
      const [row] = await db.select().from(messages).where(and(eq(messages.id, id), eq(messages.workspaceId, workspaceId)))
      return row
    },

    /**
     * Messages created since then, by the steps they reached: a message counts in every step it got
     * to (a read message is also delivered and sent). Sent means WhatsApp accepted it (it has a wamid),
     * so a message it accepted and later reported failed counts as sent and as failed.
     */
    async countReached (workspaceId: string, since: Date): Promise<ReachedCounts> {
      const [row] = await db.select({
        waiting: sql<number>`count(*) filter (where ${messages.status} in (${sql.raw(sqlStatuses(OPEN_STATUSES))}))`.mapWith(Number),
        sent: sql<number>`count(${messages.wamid})`.mapWith(Number),
        delivered: sql<number>`count(*) filter (where ${messages.status} in (${sql.raw(sqlStatuses(REACHED_STATUSES.slice(1)))}))`.mapWith(Number),
        read: sql<number>`count(*) filter (where ${messages.status} = 'read')`.mapWith(Number),
        failed: sql<number>`count(*) filter (where ${messages.status} = 'failed')`.mapWith(Number)
      }).from(messages).where(and(eq(messages.workspaceId, workspaceId), gte(messages.createdAt, since)))
      return row
    }
  }
}

export type MessageSearch = ReturnType<typeof messageSearch>

function searchCondition (search: string): SQL {
  const text = search.trim()
  if (text.startsWith('wamid.')) return eq(messages.wamid, text)
  if (text.startsWith('msg_')) return eq(messages.id, text)
  if (isUserId(text)) return eq(messages.recipient, text)
  const digits = text.replace(/[\s()+-]/g, '')
  if (/^\d+$/.test(digits)) return sql`position(${digits} in ${messages.recipient}) > 0`
  return sql`false`
}
