// The outbox's writer is at store level (src/store/outbox.ts: docs/decisions/017-the-house.md); this
// room delivers what it wrote, with these limits.
export { DELIVERY_QUEUE, emitEvents, outboxBell, subscribers, type OutboxBell, type OutgoingEvent, type Subscriber } from '../store/outbox.js'

/** deliveries a process claims at once, and attempts it has in flight */
export const OUTBOX_BATCH = 128
export const OUTBOX_CONCURRENCY = 512
/**
 * attempts to one endpoint in flight at once: an endpoint that hangs holds at most these slots
 * (each until DELIVERY_TIMEOUT_MS), and the others' events go past its backlog
 */
export const ENDPOINT_IN_FLIGHT = 384

/** CONTRACT.md 10's event types; `webhook.test` is the dashboard's "send test event" (sent to one endpoint only). */
export const EVENT_TYPES = ['message.queued', 'message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.received', 'template.updated', 'campaign.completed', 'campaign.paused', 'campaign.resumed', 'flow.completed', 'contact.erased'] as const
export type EventType = typeof EVENT_TYPES[number] | 'webhook.test'
