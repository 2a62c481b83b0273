import { sql } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import type { MessageRecord } from '../../db/schema.js'
import { anyOf } from '../store/any-of.js'
import { asRecord } from '../store/keyed-insert.js'
import type { StatusChange } from '../store/status-events.js'
import type { OnApplied } from '../webhooks/inbox.js'
import type { Transaction } from '../work/runner.js'
import { emitEvents, subscribers, type OutgoingEvent } from './outbox.js'
import { messageEvent } from '../resources/message.js'
import { reachedRank, REACHED_STATUSES } from '../resources/message-status.js'
import { receivedEvents, templateEvent } from './resources.js'
import { inboundParts } from '../conversations/replies.js'
import type { InboundParts } from '../resources/inbound.js'
import type { InboundMessage } from '../store/inbound.js'

/**
 * What the webhook intake changed, as customer events, in the intake's own transaction: no event
 * without its change, no change without its event (CONTRACT.md 10). Only real moves make events;
 * a status kept in the history without changing the record makes none.
 */
export const emitIntakeEvents: OnApplied = async function emitIntakeEvents (tx, applied) {
  const endpoints = await subscribers(tx, [...applied.statusChanges, ...applied.inbound, ...applied.templates].map(change => change.workspaceId))
  // most workspaces subscribe to nothing: then there is no record to read back
  if (endpoints.length === 0) return
  const subscribed = new Set(endpoints.map(endpoint => endpoint.workspaceId))
  const moved = applied.statusChanges.filter(change => change.status !== change.previousStatus && subscribed.has(change.workspaceId))
  const byId = new Map((await recordsOf(tx, moved.map(change => change.messageId))).map(record => [record.id, record]))
  const inbound = applied.inbound.filter(message => subscribed.has(message.workspaceId)).map(message => ({ ...message, createdAt: message.receivedAt, readAt: null, contentPurgedAt: null }))
  const parts = await partsOf(tx, inbound)
  await emitEvents(tx, [
    ...moved.flatMap(change => byId.has(change.messageId) ? stepsOf(change, byId.get(change.messageId)!) : []),
    ...inbound.flatMap(message => receivedEvents(message, parts.get(message.id)!)),
    ...applied.templates.map(templateEvent)
  ], endpoints)
}

/** Each message's text, file and reply_to, resolved per workspace (CONTRACT.md 19). */
async function partsOf (tx: Transaction, inbound: InboundMessage[]): Promise<Map<string, InboundParts>> {
  const parts = new Map<string, InboundParts>()
  for (const workspaceId of new Set(inbound.map(message => message.workspaceId))) {
    const messages = inbound.filter(message => message.workspaceId === workspaceId)
    for (const [id, part] of await inboundParts(tx, workspaceId, messages)) parts.set(id, part)
  }
  return parts
}

/** The records by primary key (a batch can name more than a statement's 65,535 parameters). */
async function recordsOf (tx: Transaction, ids: string[]): Promise<MessageRecord[]> {
  if (ids.length === 0) return []
  const rows = rowsOf<Record<string, unknown>>(await tx.execute(sql`select * from messages
    where id = ${anyOf(ids)}`))
  return rows.map(asRecord)
}

/**
 * A batch can carry a message's delivered and read together, and the record then moves two steps
 * at once: each step it passed is an event of its own (a read message was delivered), in order.
 */
function stepsOf (change: StatusChange, record: MessageRecord): OutgoingEvent[] {
  const to = reachedRank(change.status)
  if (to === 0) return [messageEvent(record)].filter(event => event !== undefined)
  const from = reachedRank(change.previousStatus)
  return REACHED_STATUSES.slice(from, to).map(status => messageEvent({ ...record, status })).filter(event => event !== undefined)
}
