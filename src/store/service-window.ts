import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { isUserId } from '../resources/recipient.js'
import { earlierUserIds } from './user-ids.js'

/**
 * Whether the recipient has written to the number since `since`: a phone number as `from`; a
 * business-scoped user id as `from_user_id` (or as a `from` that was not digits), under this id or
 * any earlier id that was linked to it.
 */
function wroteSinceQuery (workspaceId: string, phoneNumberId: string, recipient: string, since: Date): SQL {
  const at = sql`received_at > ${since.toISOString()}::timestamptz`
  return isUserId(recipient)
    ? sql`exists (select 1 from inbound_messages where phone_number_id = ${phoneNumberId} and ${at}
        and (from_user_id in ${earlierUserIds(workspaceId, recipient)} or "from" in ${earlierUserIds(workspaceId, recipient)}))`
    : sql`exists (select 1 from inbound_messages where phone_number_id = ${phoneNumberId} and "from" = ${recipient} and ${at})`
}

/** What the stored inbound messages say about a recipient's 24-hour service window (CONTRACT.md 11, 16). */
export function serviceWindowStore (db: Database) {
  return {
    /** Whether the recipient has written to the number since `since` (wroteSinceQuery). */
    async wroteSince (workspaceId: string, phoneNumberId: string, recipient: string, since: Date): Promise<boolean> {
      return rowsOf<{ wrote: boolean }>(await db.execute(sql`select ${wroteSinceQuery(workspaceId, phoneNumberId, recipient, since)} as wrote`))[0].wrote
    },

    /** The same question as an SQL boolean, for a statement that asks it with others (the messaging limit's). */
    wroteSinceQuery
  }
}

export type ServiceWindowStore = ReturnType<typeof serviceWindowStore>
