import type { messageEvents } from '../../db/schema.js'
import type { MessageRecord } from '../store/messages.js'
import { formatTime, phone } from './parts.js'

/** One message as the list shows it, server-rendered and in the live JSON alike: display strings only. */
export interface MessageRow {
  id: string
  href: string
  to: string
  type: string
  status: string
  created: string
  updated: string
  wamid: string
  detail: string
  source: string
}

export interface EventRow { status: string, at: string, error: string, pricing: string, received: string }

export function messageRow (record: MessageRecord, keyNames: ReadonlyMap<string, string>): MessageRow {
  return {
    id: record.id,
    href: `/dashboard/messages/${encodeURIComponent(record.id)}`,
    to: phone(record.recipient),
    type: record.type,
    // a queued send waiting for a reason (CONTRACT.md 14)
    status: record.status === 'queued' && record.heldReason ? 'held' : record.status,
    created: formatTime(record.createdAt),
    updated: formatTime(record.updatedAt),
    wamid: record.wamid ?? '',
    detail: detailOf(record),
    source: sourceOf(record.apiKeyId, keyNames)
  }
}

export function eventRow (event: typeof messageEvents.$inferSelect): EventRow {
  return {
    status: event.status,
    at: formatTime(event.upstreamTimestamp),
    error: event.errorCode ? `${event.errorCode}${event.errorText ? `: ${event.errorText}` : ''}` : '',
    pricing: event.pricingCategory ?? '',
    received: formatTime(event.receivedAt)
  }
}

function detailOf (record: MessageRecord): string {
  if (record.status === 'failed') return [record.errorCode, record.errorText].filter(Boolean).join(': ')
  if (record.status === 'queued' && record.heldReason) return `held: ${HELD_REASONS[record.heldReason]}`
  if (record.pricingCategory) return `pricing: ${record.pricingCategory}`
  return ''
}

const HELD_REASONS: Record<string, string> = {
  messaging_limit: 'messaging_limit (waits for a free slot of the messaging limit)',
  cooldown: 'cooldown (the recipient reached the per-user marketing cap; waits 24 h)',
  template_paused: 'template_paused (goes when the template is approved again)'
}

function sourceOf (apiKeyId: string | null, keyNames: ReadonlyMap<string, string>): string {
  if (apiKeyId === null) return 'Dashboard'
  const name = keyNames.get(apiKeyId)
  return name === undefined ? 'API' : `API key “${name}”`
}
