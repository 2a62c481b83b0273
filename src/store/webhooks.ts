import { and, desc, eq, gte, inArray, isNull, ne, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, type DeliveryStatus } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { anyOf } from './any-of.js'
import { createBatcher } from './batcher.js'
import { newId } from './ids.js'
import { jobSql } from '../work/jobs.js'
import { DELIVERY_QUEUE } from './outbox.js'

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect
export type DeliveryAttempt = typeof webhookDeliveryAttempts.$inferSelect

/** A delivery as one attempt sees it: its bytes, and where and with which (encrypted) secret to send them. */
export interface AttemptTarget {
  id: string
  status: DeliveryStatus
  webhookId: string
  body: string
  url: string
  secret: string
  targetRemoved: boolean
}

export interface AttemptOutcome {
  status: DeliveryStatus
  responseStatus: number | null
  error: string | null
  nextAttemptAt: Date | null
}

/** Customer webhook endpoints and their deliveries (the outbox rows); events are emitted by src/events/outbox.ts. */
// Deliveries run by the hundred per second: their reads and writes are shared by concurrent attempts (see batcher.ts).
const MAX_BATCH = 200

export function webhookStore (db: Database) {
  // Written out (no query building, one JSON parameter, only what an attempt needs) and looked up by
  // primary key: these run for every event.
  const loadForAttempt = createBatcher(async (ids: string[]): Promise<Array<AttemptTarget | undefined>> => {
    const rows = rowsOf<{ id: string, status: DeliveryStatus, webhook_id: string, body: string, url: string, secret: string, removed: boolean }>(await db.execute(sql`
      select d.id, d.status, d.webhook_id, d.body, e.url, e.secret, e.removed_at is not null as removed
      from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      where d.id = ${anyOf(ids)}`))
    const byId = new Map(rows.map(row => [row.id, { id: row.id, status: row.status, webhookId: row.webhook_id, body: row.body, url: row.url, secret: row.secret, targetRemoved: row.removed }]))
    return ids.map(id => byId.get(id))
  }, { maxBatch: MAX_BATCH })

  // The rows are found through the primary key (anyOf): joined to the JSON alone, the planner
  // read the whole table for each batch (61 rows read per attempt saved at 12,000 deliveries).
  const saveAttempts = createBatcher(async (attempts: Array<AttemptOutcome & { id: string }>) => {
    const rows = attempts.map(a => ({ id: a.id, status: a.status, response_status: a.responseStatus, error: a.error, next_attempt_at: a.nextAttemptAt?.toISOString() ?? null }))
    // the attempt's own row is written by the same statement (the delivery page lists them)
    await db.execute(sql`with updated as (
        update webhook_deliveries d set status = v.status, attempts = d.attempts + 1, last_response_status = v.response_status,
          last_error = v.error, next_attempt_at = v.next_attempt_at, delivered_at = case when v.status = 'delivered' then now() else null end,
          -- contact.erased names the person: its body goes once it is delivered or has failed (CONTRACT.md 17)
          body = case when d.type = 'contact.erased' and v.status <> 'pending' then json_build_object('type', d.type)::text else d.body end,
          content_purged_at = case when d.type = 'contact.erased' and v.status <> 'pending' then now() else d.content_purged_at end
        from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, status text, response_status int, error text, next_attempt_at timestamptz)
        where d.id = ${anyOf(rows.map(row => row.id))} and d.id = v.id
        returning d.id, d.attempts, d.status, d.last_response_status, d.last_error)
      insert into webhook_delivery_attempts (delivery_id, number, response_status, error, outcome)
      select id, attempts, last_response_status, last_error, status from updated`)
    return attempts.map(() => undefined)
  }, { maxBatch: MAX_BATCH })

  return {
    /** `secret` arrives encrypted. */
    async addEndpoint (endpoint: { workspaceId: string, url: string, events: string[], secret: string }, also?: AlsoInTransaction<WebhookEndpoint>): Promise<WebhookEndpoint> {
      const row = await changeWith(db, async on => (await on.insert(webhookEndpoints).values({ id: newId('whe'), ...endpoint }).returning())[0], also)
      return row!
    },

    async endpoints (workspaceId: string): Promise<WebhookEndpoint[]> {
      return await db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.workspaceId, workspaceId), isNull(webhookEndpoints.removedAt)))
        .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id)
    },

    async endpoint (id: string): Promise<WebhookEndpoint | undefined> {
      const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id))
      return row
    },

    /**
     * Its pending deliveries end `failed` at their next attempt; the rows stay for the record. False
     * when there is no such endpoint; removing twice is harmless, and `also` runs only the first time.
     */
    async removeEndpoint (id: string, workspaceId?: string, also?: AlsoInTransaction<WebhookEndpoint>): Promise<boolean> {
      const scope = workspaceId ? and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.workspaceId, workspaceId)) : eq(webhookEndpoints.id, id)
      const removed = await changeWith(db, async on => (await on.update(webhookEndpoints).set({ removedAt: sql`now()` })
        .where(and(scope, isNull(webhookEndpoints.removedAt))).returning())[0], also)
      return removed !== undefined || (await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(scope)).length > 0
    },

    /** Newest first. */
    async deliveries (workspaceId: string, options: { status?: DeliveryStatus, endpointId?: string, limit?: number } = {}): Promise<WebhookDelivery[]> {
      const where = [eq(webhookDeliveries.workspaceId, workspaceId)]
      if (options.status) where.push(eq(webhookDeliveries.status, options.status))
      if (options.endpointId) where.push(eq(webhookDeliveries.endpointId, options.endpointId))
      return await db.select().from(webhookDeliveries).where(and(...where))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(options.limit ?? 50)
    },

    /** Endpoints by id, removed ones included: what a list of deliveries names. */
    async endpointsByIds (ids: string[]): Promise<WebhookEndpoint[]> {
      if (ids.length === 0) return []
      return await db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, [...new Set(ids)]))
    },

    /** A delivery's attempts, oldest first. */
    async attempts (deliveryId: string): Promise<DeliveryAttempt[]> {
      return await db.select().from(webhookDeliveryAttempts).where(eq(webhookDeliveryAttempts.deliveryId, deliveryId)).orderBy(webhookDeliveryAttempts.id)
    },

    async delivery (id: string): Promise<WebhookDelivery | undefined> {
      const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id))
      return row
    },

    /** What one attempt needs: the delivery and its endpoint. */
    async forAttempt (id: string): Promise<AttemptTarget | undefined> {
      return await loadForAttempt(id)
    },

    async recordAttempt (id: string, outcome: AttemptOutcome): Promise<void> {
      await saveAttempts({ id, ...outcome })
    },

    /**
     * Sends settled deliveries again, same webhook-id and body: back to pending with a new job, in one
     * transaction. A delivery still pending has its job already, so it is left alone (one attempt at a time).
     */
    async replay (where: { deliveryId: string, workspaceId?: string } | { endpointId: string, since: Date, workspaceId?: string }): Promise<number> {
      const scope = 'deliveryId' in where
        ? [eq(webhookDeliveries.id, where.deliveryId)]
        : [eq(webhookDeliveries.endpointId, where.endpointId), gte(webhookDeliveries.createdAt, where.since)]
      if (where.workspaceId) scope.push(eq(webhookDeliveries.workspaceId, where.workspaceId))
      return await db.transaction(async tx => {
        const rows = await tx.update(webhookDeliveries).set({ status: 'pending', nextAttemptAt: new Date(), deliveredAt: null })
          .where(and(...scope, ne(webhookDeliveries.status, 'pending'))).returning({ id: webhookDeliveries.id, endpointId: webhookDeliveries.endpointId })
        if (rows.length === 0) return 0
        const ids = rows.map(row => row.id)
        // the dead letters these replace
        await jobSql.deleteDead(tx, DELIVERY_QUEUE, ids)
        await jobSql.enqueue(tx, rows.map(row => ({ queue: DELIVERY_QUEUE, groupKey: row.endpointId, payload: row.id })))
        return ids.length
      })
    }
  }
}

export type WebhookStore = ReturnType<typeof webhookStore>
