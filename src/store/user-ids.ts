import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { isUserId } from '../resources/recipient.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

/** A business-scoped user id the upstream replaced by another (an inbound `user_changed_user_id`). */
export interface UserIdChange { workspaceId: string, oldUserId: string, newUserId: string }

// a chain longer than this is followed no further (and a cycle never ends a walk)
const MAX_HOPS = 16

/**
 * Links each replaced id to its successor, in the transaction that stores the system message. The
 * new id is current from now on: a link that had replaced it is dropped, so a walk never loops.
 */
export async function linkUserIds (tx: Executor, changes: UserIdChange[]): Promise<void> {
  for (const change of changes) {
    if (change.oldUserId === change.newUserId) continue
    await tx.execute(sql`delete from user_id_links where workspace_id = ${change.workspaceId} and old_user_id = ${change.newUserId}`)
    await tx.execute(sql`insert into user_id_links (workspace_id, old_user_id, new_user_id) values (${change.workspaceId}, ${change.oldUserId}, ${change.newUserId})
      on conflict (workspace_id, old_user_id) do update set new_user_id = excluded.new_user_id, linked_at = now()`)
    // the user opted out under the old id: the new id is suppressed too (CONTRACT.md 16), with the same reason
    await tx.execute(sql`insert into suppressions (id, workspace_id, recipient, reason)
      select ${newId('sup')}, workspace_id, ${change.newUserId}, reason from suppressions where workspace_id = ${change.workspaceId} and recipient = ${change.oldUserId}
      on conflict do nothing`)
    await tx.execute(sql`insert into cooldowns (workspace_id, recipient, until)
      select workspace_id, ${change.newUserId}, until from cooldowns where workspace_id = ${change.workspaceId} and recipient = ${change.oldUserId} and until > now()
      on conflict (workspace_id, recipient) do update set until = greatest(cooldowns.until, excluded.until)`)
  }
}

/** The ids linked to `userId` (itself included) as a set-returning SQL fragment: every earlier id that led to it. */
export function earlierUserIds (workspaceId: string, userId: string) {
  return sql`(with recursive earlier (id, hops) as (
      select ${userId}::text, 0
      union
      select l.old_user_id, e.hops + 1 from user_id_links l join earlier e on l.workspace_id = ${workspaceId} and l.new_user_id = e.id
      where e.hops < ${MAX_HOPS}
    ) select id from earlier)`
}

export function userIdStore (db: Database) {
  return {
    /**
     * Who a send to `recipient` goes to: a phone number as is; a business-scoped user id at the end
     * of its chain of links (itself when it was never replaced).
     */
    async current (workspaceId: string, recipient: string): Promise<string> {
      if (!isUserId(recipient)) return recipient
      const result = await db.execute(sql`with recursive later (id, hops) as (
          select ${recipient}::text, 0
          union all
          select l.new_user_id, t.hops + 1 from user_id_links l join later t on l.workspace_id = ${workspaceId} and l.old_user_id = t.id
          where t.hops < ${MAX_HOPS}
        ) select id from later order by hops desc limit 1`)
      return rowsOf<{ id: string }>(result)[0]?.id ?? recipient
    }
  }
}

export type UserIdStore = ReturnType<typeof userIdStore>
