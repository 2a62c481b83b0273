import type { Database } from '../../db/client.js'
import { queryDate } from '../http/query-date.js'
import { inboundView, conversationView } from '../resources/inbound.js'
import { messageView } from '../resources/message.js'
import type { ConversationStore } from '../store/conversations.js'
import type { InboundMessage, InboundStore } from '../store/inbound.js'
import type { MediaStore } from '../store/media.js'
import { decodeKeyset, encodeKeyset } from './cursor.js'
import { inboundParts } from './replies.js'
import type { ConversationQuery, InboundQuery } from './schemas.js'

export interface ReadDeps {
  db: Database
  inbound: Pick<InboundStore, 'page'>
  conversations: Pick<ConversationStore, 'list' | 'thread'>
  media: Pick<MediaStore, 'ofInbound'>
}

/** I for each message (CONTRACT.md 19): their files' rows and what they reply to, read together. */
export async function inboundViews (deps: Pick<ReadDeps, 'db' | 'media'>, workspaceId: string, messages: InboundMessage[]) {
  const media = new Map((await deps.media.ofInbound(workspaceId, messages.map(message => message.id))).map(row => [row.inboundMessageId!, row]))
  const parts = await inboundParts(deps.db, workspaceId, messages, media)
  return messages.map(message => inboundView(message, parts.get(message.id)!))
}

/** A page of GET /api/inbound.php. */
export async function inboundPage (deps: ReadDeps, workspaceId: string, query: InboundQuery) {
  const after = query.cursor === undefined ? undefined : decodeKeyset(query.cursor, 1)
  const page = await deps.inbound.page(workspaceId, {
    from: query.from?.replace(/^\+/, ''),
    recipient: query.recipient,
    phoneNumberId: query.phone_number_id,
    type: query.type,
    since: query.since === undefined ? undefined : queryDate(query.since, 'since'),
    limit: query.limit ?? 50,
    after: after && { at: after[0], id: after[1] }
  })
  const last = page.rows.at(-1)
  return { messages: await inboundViews(deps, workspaceId, page.rows), next_cursor: page.more && last ? encodeKeyset([last.at, last.id]) : null }
}

/** GET /api/conversations.php: a thread with `to` or `recipient`, else the list of conversations. */
export async function conversationsPage (deps: ReadDeps, workspaceId: string, query: ConversationQuery) {
  const person = query.to?.replace(/^\+/, '') ?? query.recipient
  const limit = query.limit ?? 50
  if (person === undefined) {
    const after = query.cursor === undefined ? undefined : decodeKeyset(query.cursor, 2)
    const page = await deps.conversations.list(workspaceId, { phoneNumberId: query.phone_number_id, limit, after: after && { at: after[0], phoneNumberId: after[1], person: after[2] } })
    const last = page.rows.at(-1)
    return { conversations: page.rows.map(conversationView), next_cursor: page.more && last ? encodeKeyset([last.at, last.phoneNumberId, last.person]) : null }
  }
  const after = query.cursor === undefined ? undefined : decodeKeyset(query.cursor, 1)
  const page = await deps.conversations.thread(workspaceId, person, { phoneNumberId: query.phone_number_id, limit, after: after && { at: after[0], id: after[1] } })
  const inbound = page.items.flatMap(item => item.direction === 'inbound' ? [item.row] : [])
  const views = new Map((await inboundViews(deps, workspaceId, inbound)).map(view => [view.id, view]))
  const last = page.items.at(-1)
  return {
    messages: page.items.map(item => item.direction === 'outbound'
      ? { direction: 'outbound' as const, ...messageView(item.row) }
      : { direction: 'inbound' as const, ...views.get(item.row.id)! }),
    next_cursor: page.more && last ? encodeKeyset([last.at, last.row.id]) : null
  }
}
