import { and, inArray, isNull } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js'
import { newId } from '../store/ids.js'
import { jobSql, type Executor } from '../store/jobs.js'

export const DELIVERY_QUEUE = 'webhook-deliveries'

/** CONTRACT.md 10's event types; `webhook.test` is the dashboard's "send test event" (sent to one endpoint only). */
export const EVENT_TYPES = ['message.queued', 'message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.received', 'template.updated'] as const
export type EventType = typeof EVENT_TYPES[number] | 'webhook.test'

export interface OutgoingEvent {
  workspaceId: string
  type: EventType
  /** a snapshot taken now: a replay sends the same bytes */
  data: unknown
  /** only this endpoint (a test event); default: every endpoint of the workspace subscribed to the type */
  endpointId?: string
}

type Tx = Executor & Pick<Database, 'select' | 'insert'>

const wakers = new Set<() => void>()

/** The delivery task of this process listens here, so that a committed event goes out without waiting for a poll. */
export function onOutboxCommitted (wake: () => void): () => void {
  wakers.add(wake)
  return () => wakers.delete(wake)
}

/** Call after the transaction that emitted events has committed. */
export function outboxCommitted (): void {
  for (const wake of wakers) wake()
}

/**
 * The transactional outbox: inside the caller's transaction, one delivery row per subscribed
 * endpoint and one job per delivery, so an event exists exactly when its change committed.
 * Three statements however many events. Returns the ids of the deliveries created.
 */
export async function emitEvents (tx: Tx, events: OutgoingEvent[]): Promise<string[]> {
  if (events.length === 0) return []
  const workspaceIds = [...new Set(events.map(event => event.workspaceId))]
  const endpoints = await tx.select({ id: webhookEndpoints.id, workspaceId: webhookEndpoints.workspaceId, events: webhookEndpoints.events })
    .from(webhookEndpoints).where(and(inArray(webhookEndpoints.workspaceId, workspaceIds), isNull(webhookEndpoints.removedAt)))
  if (endpoints.length === 0) return []
  const rows: Array<typeof webhookDeliveries.$inferInsert> = []
  for (const event of events) {
    const targets = endpoints.filter(endpoint => endpoint.workspaceId === event.workspaceId &&
      (event.endpointId ? endpoint.id === event.endpointId : endpoint.events.includes(event.type)))
    if (targets.length === 0) continue
    const webhookId = newId('whmsg')
    const body = JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), data: event.data })
    for (const endpoint of targets) {
      rows.push({ id: newId('whd'), endpointId: endpoint.id, workspaceId: event.workspaceId, type: event.type, webhookId, body, nextAttemptAt: new Date() })
    }
  }
  if (rows.length === 0) return []
  await tx.insert(webhookDeliveries).values(rows)
  await jobSql.enqueue(tx, rows.map(row => ({ queue: DELIVERY_QUEUE, payload: row.id! })))
  return rows.map(row => row.id!)
}
