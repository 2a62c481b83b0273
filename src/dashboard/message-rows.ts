import type { MessageStatus } from '../resources/message-status.js'
import type { HistoryStep } from '../resources/history.js'
import type { MessageRecord } from '../store/messages.js'
import { UNKNOWN_OUTCOME_CODES } from '../store/status-events.js'
import { identifier } from './html.js'
import { formatTime, recipientLabel } from './parts.js'

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

/** One step of a message's history, as the API tells it (GET /api/messages.php?id=), in display strings. */
export interface EventRow { status: string, at: string, error: string, pricing: string, received: string }

export function messageRow (record: MessageRecord, keyNames: ReadonlyMap<string, string>): MessageRow {
  return {
    id: record.id,
    href: `/dashboard/messages/${encodeURIComponent(record.id)}`,
    to: recipientLabel(record.recipient),
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

/** One step of the message's history (src/resources/history.ts: the same story the API tells). */
export function eventRow (step: HistoryStep): EventRow {
  return {
    status: step.status,
    at: formatTime(step.at),
    error: step.error ? errorLine(step.error.code, step.error.message) : '',
    pricing: step.pricing ?? '',
    received: step.source === 'upstream' ? formatTime(step.receivedAt) : ''
  }
}

/**
 * An upstream error said once: "131026: Message undeliverable", not the raw
 * "131026: (#131026) Message undeliverable: Message Undeliverable." (the code is repeated in the
 * message, and the details often repeat the title).
 */
export function errorLine (code: string | null, text: string | null): string {
  if (!code) return ''
  let message = (text ?? '').replace(new RegExp(`^\\(#${code.replace(/[^\w]/g, '')}\\)\\s*`), '').trim()
  const [title, ...rest] = message.split(': ')
  const details = rest.join(': ')
  if (details && normal(details) === normal(title)) message = title
  return message ? `${code}: ${message}` : code
}

const normal = (text: string) => text.toLowerCase().replace(/[.\s]+$/, '')

// Meta's pricing categories in plain words (upstream-facts.md: pricing.category).
const PRICING: Record<string, string> = {
  marketing: 'Marketing message',
  marketing_lite: 'Marketing message (lite)',
  utility: 'Utility message',
  authentication: 'Authentication message',
  authentication_international: 'Authentication message (international rate)',
  service: 'Customer service reply',
  referral_conversion: 'Free: the customer came from an ad'
}

/** How WhatsApp priced the message, or why it has no price (yet). */
export function pricingText (record: Pick<MessageRecord, 'pricingCategory' | 'status' | 'errorCode'>): string {
  if (record.pricingCategory) return PRICING[record.pricingCategory] ?? record.pricingCategory.replace(/_/g, ' ')
  if (record.status === 'failed' && record.errorCode && UNKNOWN_OUTCOME_CODES.includes(record.errorCode)) return 'Not reported: whether it was sent is unknown'
  return NO_PRICE[record.status]
}

const NO_PRICE: Record<MessageStatus, string> = {
  queued: 'None yet: priced once it is sent',
  sending: 'None yet: priced once it is sent',
  pending: 'None yet: priced once it is sent',
  sent: 'Not reported yet',
  delivered: 'Not reported yet',
  read: 'Not reported yet',
  failed: 'None: a failed message is not charged'
}

function detailOf (record: MessageRecord): string {
  if (record.status === 'failed') return errorLine(record.errorCode, record.errorText)
  if (record.status === 'queued' && record.heldReason) return `held: ${HELD_REASONS[record.heldReason]}`
  return record.pricingCategory ? pricingText(record) : ''
}

const HELD_REASONS: Record<string, string> = {
  messaging_limit: 'messaging_limit (waits for a free slot of the messaging limit)',
  cooldown: 'cooldown (the recipient reached the per-user marketing cap; waits 24 h)',
  template_paused: 'template_paused (goes when the template is approved again)'
}

function sourceOf (apiKeyId: string | null, keyNames: ReadonlyMap<string, string>): string {
  if (apiKeyId === null) return 'Dashboard'
  const name = keyNames.get(apiKeyId)
  return name === undefined ? 'API' : `API key “${identifier(name)}”`
}
