import { inArray } from 'drizzle-orm'
import { messages } from '../../db/schema.js'
import type { StatusChange } from '../store/status-events.js'
import type { MessageRecord } from '../store/messages.js'
import type { OnApplied } from '../webhooks/inbox.js'
import { emitEvents, type OutgoingEvent } from './outbox.js'
import { messageEvent, receivedEvent, templateEvent } from './resources.js'

const LADDER = ['sent', 'delivered', 'read'] as const

/**
 * What the webhook intake changed, as customer events, in the intake's own transaction: no event
 * without its change, no change without its event (CONTRACT.md 10). Only real moves make events;
 * a status kept in the history without changing the record makes none.
 */
export const emitIntakeEvents: OnApplied = async function emitIntakeEvents (tx, applied) {
  const moved = applied.statusChanges.filter(change => change.status !== change.previousStatus)
  const records = moved.length === 0 ? [] : await tx.select().from(messages).where(inArray(messages.id, [...new Set(moved.map(change => change.messageId))]))
  const byId = new Map(records.map(record => [record.id, record]))
  await emitEvents(tx, [
    ...moved.flatMap(change => byId.has(change.messageId) ? stepsOf(change, byId.get(change.messageId)!) : []),
    ...applied.inbound.map(message => receivedEvent({ ...message, createdAt: message.receivedAt })),
    ...applied.templates.map(templateEvent)
  ])
}

/**
 * A batch can carry a message's delivered and read together, and the record then moves two steps
 * at once: each step it passed is an event of its own (a read message was delivered), in order.
 */
function stepsOf (change: StatusChange, record: MessageRecord): OutgoingEvent[] {
  const to = LADDER.indexOf(change.status as typeof LADDER[number])
  if (to < 0) return [messageEvent(record)].filter(event => event !== undefined)
  const from = LADDER.indexOf(change.previousStatus as typeof LADDER[number])
  return LADDER.slice(from + 1, to + 1).map(status => messageEvent({ ...record, status })).filter(event => event !== undefined)
}
