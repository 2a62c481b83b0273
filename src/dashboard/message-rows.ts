import type { HistoryStep } from '../resources/history.js'
import type { MessageRecord } from '../store/messages.js'
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

export interface EventRow { status: string, at: string, error: string, pricing: string, received: string }

export function messageRow (record: MessageRecord, keyNames: ReadonlyMap<string, string>): MessageRow {
  return {
    id: record.id,
    href: `/dashboard/messages/${encodeURIComponent(record.id)}`,
    to: recipientLabel(record.recipient),
    type: record.type,
    status: record.status,
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
    error: step.error ? `${step.error.code}${step.error.message ? `: ${step.error.message}` : ''}` : '',
    pricing: step.pricing ?? '',
    received: step.source === 'upstream' ? formatTime(step.receivedAt) : ''
  }
}

function detailOf (record: MessageRecord): string {
  if (record.status === 'failed') return [record.errorCode, record.errorText].filter(Boolean).join(': ')
  if (record.pricingCategory) return `pricing: ${record.pricingCategory}`
  return ''
}

function sourceOf (apiKeyId: string | null, keyNames: ReadonlyMap<string, string>): string {
  if (apiKeyId === null) return 'Dashboard'
  const name = keyNames.get(apiKeyId)
  return name === undefined ? 'API' : `API key “${name}”`
}
