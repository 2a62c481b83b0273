import { and, inArray, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { webhookEndpoints } from '../../db/schema.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'
import { jobSql } from '../work/jobs.js'

// The outbox's writer stands at store level: a store's change of state and the event it causes
// commit in one transaction without the store reaching up to src/events (which delivers them).

/** The job queue of outgoing deliveries: one job per delivery, grouped by endpoint. */
export const DELIVERY_QUEUE = 'webhook-deliveries'

export interface OutgoingEvent {
  workspaceId: string
  /** one of src/events' EVENT_TYPES, or `webhook.test` */
  type: string
  /** a snapshot taken now: a replay sends the same bytes */
  data: unknown
  /** only this endpoint (a test event); default: every endpoint of the workspace subscribed to the type */
  endpointId?: string
}

type Tx = Executor & Pick<Database, 'select' | 'insert'>

/**
 * An app's doorbell on its outbox: its delivery task listens, so that a committed event goes out
 * without waiting for a poll. One per app (src/stores.ts), not per process: a process can build
 * several apps (the tests do), and one app's commit must not wake another's task.
 */
export interface OutboxBell {
  /** Call after the transaction that emitted events has committed. */
  committed(): void
  onCommitted(wake: () => void): () => void
}

export function outboxBell (): OutboxBell {
  const wakers = new Set<() => void>()
  return {
    committed () { for (const wake of wakers) wake() },
    onCommitted (wake) {
      wakers.add(wake)
      return () => wakers.delete(wake)
    }
  }
}

export interface Subscriber { id: string, workspaceId: string, events: string[] }

/** The live endpoints of these workspaces: a caller with much to build can skip it when there are none. */
export async function subscribers (tx: Tx, workspaceIds: string[]): Promise<Subscriber[]> {
  const unique = [...new Set(workspaceIds)]
  if (unique.length === 0) return []
  return await tx.select({ id: webhookEndpoints.id, workspaceId: webhookEndpoints.workspaceId, events: webhookEndpoints.events })
    .from(webhookEndpoints).where(and(inArray(webhookEndpoints.workspaceId, unique), isNull(webhookEndpoints.removedAt)))
}

/**
 * The transactional outbox: inside the caller's transaction, one delivery row per subscribed
 * endpoint and one job per delivery (grouped by endpoint: plugins/events.ts caps each endpoint's
 * attempts in flight), so an event exists exactly when its change committed.
 * Two statements however many events (one when the caller passes the `subscribers`). Returns the
 * ids of the deliveries created.
 */
export async function emitEvents (tx: Tx, events: OutgoingEvent[], subscribed?: Subscriber[]): Promise<string[]> {
  if (events.length === 0) return []
  const endpoints = subscribed ?? await subscribers(tx, events.map(event => event.workspaceId))
  if (endpoints.length === 0) return []
  const rows: Array<{ id: string, endpoint_id: string, workspace_id: string, type: string, webhook_id: string, body: string }> = []
  const timestamp = new Date().toISOString()
  for (const event of events) {
    const targets = endpoints.filter(endpoint => endpoint.workspaceId === event.workspaceId &&
      (event.endpointId ? endpoint.id === event.endpointId : endpoint.events.includes(event.type)))
    if (targets.length === 0) continue
    const webhookId = newId('whmsg')
    const body = JSON.stringify({ type: event.type, timestamp, data: event.data })
    for (const endpoint of targets) {
      rows.push({ id: newId('whd'), endpoint_id: endpoint.id, workspace_id: event.workspaceId, type: event.type, webhook_id: webhookId, body })
    }
  }
  if (rows.length === 0) return []
  // one JSON parameter: an intake batch can emit tens of thousands of events, past the 65,535 parameters of a statement
  await tx.execute(sql`with delivery as (
      insert into webhook_deliveries (id, endpoint_id, workspace_id, type, webhook_id, body, next_attempt_at)
      select v.id, v.endpoint_id, v.workspace_id, v.type, v.webhook_id, v.body, now()
      from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, endpoint_id text, workspace_id text, type text, webhook_id text, body text)
      returning id, endpoint_id)
    ${jobSql.insertFrom(DELIVERY_QUEUE, sql`select endpoint_id as group_key, id as payload from delivery order by id`)}`)
  return rows.map(row => row.id)
}
