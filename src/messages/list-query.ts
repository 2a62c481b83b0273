import { invalidRequest } from '../errors.js'
import type { MessageFilters } from '../store/message-reads.js'
import { decodeCursor } from './cursor.js'
import type { MessageQuery } from './read-schemas.js'

/** The list filters of a validated query: the patterns have checked the shapes, this checks the values. */
export function listFilters (query: MessageQuery): MessageFilters {
  // a `+` written unencoded in a query string arrives as a space
  const since = query.since === undefined ? undefined : new Date(query.since.replace(' ', '+'))
  if (since && Number.isNaN(since.getTime())) throw invalidRequest('since: is not a valid date', 'since')
  return {
    status: query.status,
    to: query.to?.replace(/^\+/, ''),
    since,
    clientReference: query.client_reference,
    campaignId: query.campaign_id,
    limit: query.limit === undefined ? 50 : Number(query.limit),
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor)
  }
}
