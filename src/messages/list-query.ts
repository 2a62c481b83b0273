import { queryDate } from '../http/query-date.js'
import type { MessageFilters } from '../store/message-reads.js'
import { decodeCursor } from './cursor.js'
import type { MessageQuery } from './read-schemas.js'

/** The list filters of a validated query: the patterns have checked the shapes, this checks the values. */
export function listFilters (query: MessageQuery): MessageFilters {
  const since = query.since === undefined ? undefined : queryDate(query.since, 'since')
  return {
    status: query.status,
    to: query.to?.replace(/^\+/, ''),
    recipientUserId: query.recipient_user_id,
    since,
    clientReference: query.client_reference,
    campaignId: query.campaign_id,
    limit: query.limit ?? 50,
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor)
  }
}
