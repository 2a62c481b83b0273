import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

/** What the stored inbound messages say about a recipient's 24-hour service window (CONTRACT.md 11). */
export function serviceWindowStore (db: Database) {
  return {
    /** Whether `from` has written to the number since `since`. */
    async wroteSince (phoneNumberId: string, from: string, since: Date): Promise<boolean> {
      const result = await db.execute(sql`select exists (select 1 from inbound_messages
        where phone_number_id = ${phoneNumberId} and "from" = ${from} and received_at > ${since.toISOString()}::timestamptz) as wrote`)
      return rowsOf<{ wrote: boolean }>(result)[0].wrote
    }
  }
}

export type ServiceWindowStore = ReturnType<typeof serviceWindowStore>
