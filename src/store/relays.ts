import { and, desc, eq, gte, isNull, ne, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { relayDeliveries, relayTargets, type DeliveryStatus, type RelaySigning } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { anyOf } from './any-of.js'
import { createBatcher } from './batcher.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'
import { jobSql } from '../work/jobs.js'
import type { AttemptOutcome } from './webhooks.js'

export type RelayTarget = typeof relayTargets.$inferSelect
export type RelayDelivery = typeof relayDeliveries.$inferSelect

/** The job queue of relay deliveries: one job per delivery, grouped by relay target. */
export const RELAY_QUEUE = 'relay-deliveries'

/** A live target as the intake routes to it, with the WABA of its workspace's active connection. */
export interface RoutedTarget {
  id: string
  workspaceId: string
  wabaId: string
  fields: string[] | null
  phoneNumberIds: string[] | null
}

export interface NewRelayDelivery { relayId: string, workspaceId: string, inboxDeliveryId: number, body: Buffer }

/** A relay delivery as one attempt sees it: the bytes, where to, and how to sign them. */
export interface RelayAttempt {
  id: string
  status: DeliveryStatus
  body: Buffer
  url: string
  signing: RelaySigning
  /** encrypted; null for `app` */
  secret: string | null
  targetRemoved: boolean
}

/** The targets of the workspaces that have these WABAs connected: one lookup per inbox batch, usually empty. */
export async function targetsOfWabas (tx: Executor, wabaIds: string[]): Promise<RoutedTarget[]> {
  if (wabaIds.length === 0) return []
  return rowsOf<{ id: string, workspace_id: string, waba_id: string, fields: string[] | null, phone_number_ids: string[] | null }>(await tx.execute(sql`
    select r.id, r.workspace_id, c.waba_id, r.fields, r.phone_number_ids from relay_targets r
    join connections c on c.workspace_id = r.workspace_id and c.status = 'active'
    where c.waba_id = ${anyOf(wabaIds)} and r.removed_at is null
    order by r.created_at, r.id`)).map(row => ({ id: row.id, workspaceId: row.workspace_id, wabaId: row.waba_id, fields: row.fields, phoneNumberIds: row.phone_number_ids }))
}

/**
 * The deliveries and their jobs (grouped by target: one that hangs holds only its own slots), in the
 * caller's transaction: the inbox's, so a delivery is relayed exactly when it is applied. One
 * statement; an inbox delivery already relayed to a target (it cannot be, applied once) adds nothing.
 */
export async function insertRelayDeliveries (tx: Executor, deliveries: NewRelayDelivery[]): Promise<number> {
  if (deliveries.length === 0) return 0
  const rows = deliveries.map(d => ({ id: newId('rld'), relay_id: d.relayId, workspace_id: d.workspaceId, inbox_delivery_id: d.inboxDeliveryId, body: d.body.toString('base64') }))
  const result = await tx.execute(sql`with delivery as (
      insert into relay_deliveries (id, relay_id, workspace_id, inbox_delivery_id, body, next_attempt_at)
      select v.id, v.relay_id, v.workspace_id, v.inbox_delivery_id, decode(v.body, 'base64'), now()
      from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, relay_id text, workspace_id text, inbox_delivery_id bigint, body text)
      on conflict (relay_id, inbox_delivery_id) do nothing
      returning id, relay_id)
    ${jobSql.insertFrom(RELAY_QUEUE, sql`select relay_id as group_key, id as payload from delivery order by id`)} returning id`)
  return rowsOf(result).length
}

const MAX_BATCH = 200

export function relayStore (db: Database) {
  const loadForAttempt = createBatcher(async (ids: string[]): Promise<Array<RelayAttempt | undefined>> => {
    const rows = rowsOf<{ id: string, status: DeliveryStatus, body: string, url: string, signing: RelaySigning, secret: string | null, removed: boolean }>(await db.execute(sql`
      select d.id, d.status, encode(d.body, 'base64') as body, r.url, r.signing, r.secret, r.removed_at is not null as removed
      from relay_deliveries d join relay_targets r on r.id = d.relay_id
      where d.id = ${anyOf(ids)}`))
    const byId = new Map(rows.map(row => [row.id, { id: row.id, status: row.status, body: Buffer.from(row.body, 'base64'), url: row.url, signing: row.signing, secret: row.secret, targetRemoved: row.removed }]))
    return ids.map(id => byId.get(id))
  }, { maxBatch: MAX_BATCH })

  const saveAttempts = createBatcher(async (attempts: Array<AttemptOutcome & { id: string }>) => {
    const rows = attempts.map(a => ({ id: a.id, status: a.status, response_status: a.responseStatus, error: a.error, next_attempt_at: a.nextAttemptAt?.toISOString() ?? null }))
    await db.execute(sql`update relay_deliveries d set status = v.status, attempts = d.attempts + 1, last_response_status = v.response_status,
        last_error = v.error, next_attempt_at = v.next_attempt_at, delivered_at = case when v.status = 'delivered' then now() else null end
      from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, status text, response_status int, error text, next_attempt_at timestamptz)
      where d.id = ${anyOf(rows.map(row => row.id))} and d.id = v.id`)
    return attempts.map(() => undefined)
  }, { maxBatch: MAX_BATCH })

  return {
    /** `secret` arrives encrypted. */
    async addTarget (target: { workspaceId: string, url: string, fields: string[] | null, phoneNumberIds: string[] | null, signing: RelaySigning, secret: string | null }, also?: AlsoInTransaction<RelayTarget>): Promise<RelayTarget> {
      return (await changeWith(db, async on => (await on.insert(relayTargets).values({ id: newId('rly'), ...target }).returning())[0], also))!
    },

    async targets (workspaceId: string): Promise<RelayTarget[]> {
      return await db.select().from(relayTargets).where(and(eq(relayTargets.workspaceId, workspaceId), isNull(relayTargets.removedAt)))
        .orderBy(relayTargets.createdAt, relayTargets.id)
    },

    async target (id: string): Promise<RelayTarget | undefined> {
      const [row] = await db.select().from(relayTargets).where(eq(relayTargets.id, id))
      return row
    },

    /** Its pending deliveries end `failed` at their next attempt. False when there is no such live target; `also` runs once. */
    async removeTarget (id: string, workspaceId?: string, also?: AlsoInTransaction<RelayTarget>): Promise<boolean> {
      const scope = workspaceId ? and(eq(relayTargets.id, id), eq(relayTargets.workspaceId, workspaceId)) : eq(relayTargets.id, id)
      const removed = await changeWith(db, async on => (await on.update(relayTargets).set({ removedAt: sql`now()` })
        .where(and(scope, isNull(relayTargets.removedAt))).returning())[0], also)
      return removed !== undefined
    },

    /** Newest first. */
    async deliveries (workspaceId: string, options: { status?: DeliveryStatus, relayId?: string, limit?: number } = {}): Promise<RelayDelivery[]> {
      const where = [eq(relayDeliveries.workspaceId, workspaceId)]
      if (options.status) where.push(eq(relayDeliveries.status, options.status))
      if (options.relayId) where.push(eq(relayDeliveries.relayId, options.relayId))
      return await db.select().from(relayDeliveries).where(and(...where))
        .orderBy(desc(relayDeliveries.createdAt), desc(relayDeliveries.id)).limit(options.limit ?? 50)
    },

    async delivery (id: string): Promise<RelayDelivery | undefined> {
      const [row] = await db.select().from(relayDeliveries).where(eq(relayDeliveries.id, id))
      return row
    },

    async forAttempt (id: string): Promise<RelayAttempt | undefined> {
      return await loadForAttempt(id)
    },

    async recordAttempt (id: string, outcome: AttemptOutcome): Promise<void> {
      await saveAttempts({ id, ...outcome })
    },

    /** Sends settled deliveries again, same id and bytes: back to pending with a new job, in one transaction (pending ones have theirs). */
    async replay (where: { deliveryId: string, workspaceId?: string } | { relayId: string, since: Date, workspaceId?: string }): Promise<number> {
      const scope = 'deliveryId' in where
        ? [eq(relayDeliveries.id, where.deliveryId)]
        : [eq(relayDeliveries.relayId, where.relayId), gte(relayDeliveries.createdAt, where.since)]
      if (where.workspaceId) scope.push(eq(relayDeliveries.workspaceId, where.workspaceId))
      return await db.transaction(async tx => {
        const rows = await tx.update(relayDeliveries).set({ status: 'pending', nextAttemptAt: new Date(), deliveredAt: null })
          .where(and(...scope, ne(relayDeliveries.status, 'pending'))).returning({ id: relayDeliveries.id, relayId: relayDeliveries.relayId })
        if (rows.length === 0) return 0
        await jobSql.deleteDead(tx, RELAY_QUEUE, rows.map(row => row.id))
        await jobSql.enqueue(tx, rows.map(row => ({ queue: RELAY_QUEUE, groupKey: row.relayId, payload: row.id })))
        return rows.length
      })
    }
  }
}

export type RelayStore = ReturnType<typeof relayStore>
