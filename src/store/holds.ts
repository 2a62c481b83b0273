import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import type { HoldReason } from '../../db/schema.js'
import type { Executor } from '../../db/client.js'
import { jobSql } from '../work/jobs.js'
import { SEND_QUEUES } from '../work/send-queues.js'

/**
 * Reasons whose waiting does not count towards QUEUE_MAX_AGE_MS (CONTRACT.md 14: a send held by the
 * messaging limit does not age; a cooldown is 24 h, longer than the default age). A paused template's
 * sends age as any queued send: they expire if it is not approved again in time.
 */
export const AGELESS_HOLDS: readonly HoldReason[] = ['messaging_limit', 'cooldown']
const AGELESS = `(${AGELESS_HOLDS.map(reason => `'${reason}'`).join(', ')})`

/** The held time to add to held_ms when a hold ends or changes (SQL over the `messages` row being updated). */
export const HELD_TIME_SO_FAR_SQL = `(case when held_reason in ${AGELESS} and held_since is not null
  then (extract(epoch from now() - held_since) * 1000)::bigint else 0 end)`
const HELD_TIME_SO_FAR = sql.raw(HELD_TIME_SO_FAR_SQL)

/**
 * Held queued sends: a record stays `queued` with a `held_reason` (the API shows it as `held`),
 * its job waits until the reason may have cleared (src/messages/queue.ts).
 */
export function holdStore (db: Database) {
  return {
    /** Slots freed for the WABA outside a transaction (a slot given back, a node read with a higher tier): see releaseLimitHolds. */
    async releaseLimit (wabaId: string, count?: number): Promise<number> {
      return await releaseLimitHolds(db, wabaId, count)
    },

    /** The record waits for `reason`; false when it is no longer queued. */
    async hold (id: string, reason: HoldReason): Promise<boolean> {
      const result = await db.execute(sql`update messages set held_ms = held_ms + ${HELD_TIME_SO_FAR}, held_since = now(), held_reason = ${reason}, updated_at = now()
        where id = ${id} and status = 'queued' returning id`)
      return rowsOf(result).length > 0
    }
  }
}

/**
 * A template approved again: the queued sends and campaign messages it held are looked at now
 * rather than at their next re-check. Inside the caller's transaction (the webhook intake's).
 */
export async function releaseTemplateHolds (tx: Executor, workspaceId: string, name: string, language: string): Promise<number> {
  return await jobSql.runNow(tx, SEND_QUEUES, sql`select m.phone_number_id as group_key, m.id as payload, m.created_at as at from messages m
    where m.workspace_id = ${workspaceId} and m.status = 'queued' and m.held_reason = 'template_paused'
      and m.payload #>> '{template,name}' = ${name} and replace(m.payload #>> '{template,language,code}', '-', '_') = replace(${language}, '-', '_')`)
}

/**
 * Slots freed for the WABA (a higher tier, a slot given back): the queued sends the messaging limit
 * holds are looked at now rather than at the next slot's 24 h end (CONTRACT.md 14: "goes when a
 * slot frees"). The oldest `count` of them (a slot given back frees one), or all (a tier's rise).
 * Those that still find no slot are held again. In the caller's transaction when it has one.
 */
export async function releaseLimitHolds (executor: Executor, wabaId: string, count?: number): Promise<number> {
  return await jobSql.runNow(executor, SEND_QUEUES, sql`select m.phone_number_id as group_key, m.id as payload, m.created_at as at
    from phone_numbers pn join connections c on c.id = pn.connection_id
      join messages m on m.phone_number_id = pn.phone_number_id and m.workspace_id = pn.workspace_id
    where c.waba_id = ${wabaId} and c.status = 'active' and m.status = 'queued' and m.held_reason = 'messaging_limit'`, count)
}

export type HoldStore = ReturnType<typeof holdStore>
