import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { isUserId } from '../resources/recipient.js'
import { earlierUserIds } from './user-ids.js'

/** What the stored inbound messages say about a recipient's 24-hour service window (CONTRACT.md 11, 16). */
export function serviceWindowStore (db: Database) {
  return {
    /**
     * Whether the recipient has written to the number since `since`: a phone number as `from`; a
     * business-scoped user id as `from_user_id` (or as a `from` that was not digits), under this id
     * or any earlier id that was linked to it.
     */
    async wroteSince (workspaceId: string, phoneNumberId: string, recipient: string, since: Date): Promise<boolean> {
      const at = sql`received_at > ${since.toISOString()}::timestamptz`
      const query = isUserId(recipient)
        ? sql`select exists (select 1 from inbound_messages where phone_number_id = ${phoneNumberId} and ${at}
            and (from_user_id in ${earlierUserIds(workspaceId, recipient)} or "from" in ${earlierUserIds(workspaceId, recipient)})) as wrote`
        : sql`select exists (select 1 from inbound_messages where phone_number_id = ${phoneNumberId} and "from" = ${recipient} and ${at}) as wrote`
      return rowsOf<{ wrote: boolean }>(await db.execute(query))[0].wrote
    }
  }
}

export type ServiceWindowStore = ReturnType<typeof serviceWindowStore>
