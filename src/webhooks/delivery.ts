import { tierOfWebhookValue } from '../audience/tiers.js'
import type { AudienceEvent } from '../audience/effects.js'
import type { KeptAside } from '../store/kept-aside.js'
import type { StatusEvent } from '../store/status-events.js'
import type { InboundEvent } from '../store/inbound.js'
import type { TemplateEvent } from '../store/templates.js'
import { USER_ID } from '../resources/recipient.js'
import { announcedUserId } from './user-id-changes.js'
import { arrayOf, idString, isObject, shortString, unstorablePath, upstreamTime, type InboundValue, type MessagesValue, type StatusValue, type TemplateValue, type UpstreamErrorValue, type WebhookBody, type WebhookEntry } from './payload.js'

/** What a batch of stored deliveries asks of the database, each part checked on its own. */
export type FromJob<T> = T & { jobId: number }

export interface DeliveryParts {
  statuses: FromJob<StatusEvent>[]
  inbound: FromJob<InboundEvent>[]
  templates: FromJob<TemplateEvent>[]
  keptAside: KeptAside[]
  /** opt-out preferences and messaging-limit tiers (CONTRACT.md 14) */
  audience: AudienceEvent[]
  /** WABAs whose numbers may have changed quality, throughput or tier */
  refreshWabas: Set<string>
  /** every delivery that parsed as Meta's, with its bytes as signed: what relays pass on (CONTRACT.md 18) */
  received: ReceivedDelivery[]
}

export interface ReceivedDelivery { jobId: number, raw: Buffer, body: WebhookBody }

export const emptyParts = (): DeliveryParts => ({ statuses: [], inbound: [], templates: [], keptAside: [], audience: [], refreshWabas: new Set(), received: [] })

const USER_ID_RE = new RegExp(USER_ID)

// Events that name no status of their own map to the status the template is left in.
const TEMPLATE_STATUS_OF_EVENT: Record<string, string> = { REINSTATED: 'APPROVED', UNARCHIVED: 'APPROVED', FLAGGED: 'APPROVED' }

/**
 * Reads one stored delivery into `parts`. Nothing here throws for content: a value the database
 * cannot take (a timestamp out of range, NUL or a lone surrogate, an id too long) sets aside only
 * the event that carries it.
 */
export function readDelivery (parts: DeliveryParts, jobId: number, raw: Buffer, receivedAt: Date): void {
  const aside = (entry: Omit<KeptAside, 'jobId'>) => parts.keptAside.push({ jobId, ...entry })
  // Deeper than any delivery the upstream sends: kept aside at once, before anything walks it
  // recursively (a walk that overflows the stack would fail the batch and retry it for hours).
  if (nestingDepth(raw) > MAX_NESTING) {
    aside({ kind: 'rejected', reason: 'nested_too_deep', event: raw.toString('base64') })
    return
  }
  let body: WebhookBody
  try {
    body = JSON.parse(raw.toString('utf8'))
  } catch {
    aside({ kind: 'rejected', reason: 'not_json', event: raw.toString('base64') })
    return
  }
  if (!isObject(body) || body.object !== 'whatsapp_business_account') {
    aside({ kind: 'rejected', reason: 'unknown_object', event: body })
    return
  }
  parts.received.push({ jobId, raw, body })
  for (const entry of arrayOf<WebhookEntry>(body.entry)) {
    const wabaId = idString(entry.id)
    for (const change of arrayOf<{ field?: unknown, value?: unknown }>(entry.changes)) {
      if (!isObject(change.value)) continue
      switch (change.field) {
        case 'messages': readMessages(parts, jobId, aside, change.value as MessagesValue, receivedAt); break
        case 'message_template_status_update':
        case 'template_category_update':
        case 'message_template_quality_update': readTemplate(parts, jobId, aside, wabaId, change.field, change.value as TemplateValue); break
        case 'phone_number_quality_update':
        case 'business_capability_update':
          if (!wabaId) break
          parts.refreshWabas.add(wabaId)
          readTier(parts, wabaId, change.value)
          if (change.field === 'phone_number_quality_update') readQuality(parts, wabaId, change.value)
          break
        case 'user_preferences': readPreferences(parts, aside, change.value); break
      }
    }
  }
}

// The upstream's deepest delivery (an interactive reply inside a message inside a change) nests about 10 levels.
export const MAX_NESTING = 64

/** How deep a JSON text's objects and arrays nest, counted over its bytes without parsing (so without recursion). */
export function nestingDepth (raw: Buffer): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]
    if (inString) {
      if (byte === 0x5c) i++ // a backslash escapes the next byte
      else if (byte === 0x22) inString = false
    } else if (byte === 0x22) inString = true
    else if (byte === 0x7b || byte === 0x5b) deepest = Math.max(deepest, ++depth)
    else if (byte === 0x7d || byte === 0x5d) depth--
  }
  return deepest
}

type Aside = (entry: Omit<KeptAside, 'jobId'>) => void

function readMessages (parts: DeliveryParts, jobId: number, aside: Aside, value: MessagesValue, receivedAt: Date): void {
  const phoneNumberId = idString(value.metadata?.phone_number_id)
  if (!phoneNumberId) {
    aside({ kind: 'rejected', reason: 'missing_phone_number_id', field: 'metadata.phone_number_id', event: value })
    return
  }
  arrayOf<StatusValue>(value.statuses).forEach((status, index) => {
    const event = statusEvent(phoneNumberId, status, receivedAt)
    if ('reason' in event) aside({ kind: 'rejected', routeId: phoneNumberId, reason: event.reason, field: `statuses[${index}]${event.field ? '.' + event.field : ''}`, event: status })
    else parts.statuses.push({ ...event, jobId })
  })
  arrayOf<InboundValue>(value.messages).forEach((message, index) => {
    const event = inboundEvent(phoneNumberId, message, receivedAt)
    if ('reason' in event) {
      const kind = event.reason === 'no_sender' ? 'no_sender' : 'rejected'
      aside({ kind, routeId: phoneNumberId, reason: event.reason, field: `messages[${index}]${event.field ? '.' + event.field : ''}`, event: message })
    } else parts.inbound.push({ ...event, jobId })
  })
  const errors = arrayOf<UpstreamErrorValue>(value.errors)
  if (errors.length > 0) aside({ kind: 'upstream_errors', reason: 'value_errors', routeId: phoneNumberId, codes: codesOf(errors), event: errors })
}

interface Poison { reason: string, field?: string }

function statusEvent (phoneNumberId: string, status: StatusValue, receivedAt: Date): StatusEvent | Poison {
  const wamid = shortString(status.id, 1024)
  if (!wamid) return { reason: 'invalid_id', field: 'id' }
  const name = shortString(status.status, 64)
  if (!name) return { reason: 'invalid_status', field: 'status' }
  const at = upstreamTime(status.timestamp)
  if (at === 'invalid') return { reason: 'timestamp_out_of_range', field: 'timestamp' }
  const unstorable = unstorablePath(status)
  if (unstorable !== undefined) return { reason: 'unstorable_text', field: unstorable }
  const [error] = arrayOf<UpstreamErrorValue>(status.errors)
  const details = typeof error?.error_data?.details === 'string' ? error.error_data.details : undefined
  const title = typeof error?.title === 'string' ? error.title : typeof error?.message === 'string' ? error.message : undefined
  return {
    wamid,
    status: name,
    phoneNumberId,
    upstreamTimestamp: at ?? receivedAt,
    recordId: shortString(status.biz_opaque_callback_data),
    errorCode: error ? codesOf([error]) : undefined,
    errorText: error ? [title, details].filter(Boolean).join(': ') || undefined : undefined,
    pricingCategory: shortString(status.pricing?.category, 64),
    payload: status
  }
}

function inboundEvent (phoneNumberId: string, message: InboundValue, receivedAt: Date): InboundEvent | Poison {
  const wamid = shortString(message.id, 1024)
  if (!wamid) return { reason: 'invalid_id', field: 'id' }
  const from = shortString(message.from, 256) ?? null
  // a system message changing a user's id may name the user by its new id only
  const fromUserId = shortString(message.from_user_id, 256) ?? announcedUserId(message as Record<string, unknown>) ?? null
  if (from === null && fromUserId === null) return { reason: 'no_sender', field: 'from' }
  const at = upstreamTime(message.timestamp)
  if (at === 'invalid') return { reason: 'timestamp_out_of_range', field: 'timestamp' }
  const unstorable = unstorablePath(message)
  if (unstorable !== undefined) return { reason: 'unstorable_text', field: unstorable }
  return { wamid, phoneNumberId, from, fromUserId, type: shortString(message.type, 64) ?? 'unknown', payload: message, receivedAt: at ?? receivedAt }
}

function readTemplate (parts: DeliveryParts, jobId: number, aside: Aside, wabaId: string | undefined, field: string, value: TemplateValue): void {
  const templateId = idString(value.message_template_id)
  const name = shortString(value.message_template_name)
  const language = shortString(value.message_template_language, 32)
  const poison = (reason: string, at?: string) => aside({ kind: 'rejected', reason, field: at, routeId: wabaId, event: value })
  if (!wabaId) return poison('missing_waba_id')
  if (!templateId && !(name && language)) return poison('no_template', 'message_template_id')
  if (unstorablePath(value) !== undefined) return poison('unstorable_text', unstorablePath(value))
  const change: TemplateEvent['change'] = {}
  if (field === 'message_template_status_update') {
    const event = shortString(value.event, 64)
    if (!event) return poison('invalid_event', 'event')
    // an unpause comes as an event with other_info.title UNPAUSE: the template is approved again
    change.status = value.other_info?.title === 'UNPAUSE' ? 'APPROVED' : TEMPLATE_STATUS_OF_EVENT[event] ?? event
    const reason = shortString(value.reason, 64)
    change.rejectedReason = change.status === 'REJECTED' && reason && reason !== 'NONE' ? reason : null
  } else if (field === 'template_category_update') {
    change.category = shortString(value.new_category, 64)
    if (!change.category) return poison('invalid_category', 'new_category')
  } else {
    change.quality = shortString(value.new_quality_score, 64)
    if (!change.quality) return poison('invalid_quality', 'new_quality_score')
  }
  parts.templates.push({ jobId, wabaId, templateId, name, language, change })
}

/** A tier change: `max_daily_conversations_per_business` (a tier name or a number, -1 unlimited), formerly `current_limit`. */
function readTier (parts: DeliveryParts, wabaId: string, value: Record<string, unknown>): void {
  const tier = tierOfWebhookValue(value.max_daily_conversations_per_business ?? value.current_limit)
  if (tier) parts.audience.push({ kind: 'tier', wabaId, tier })
}

/** A quality or tier move of one number, named by its display number (the value has no phone_number_id). */
function readQuality (parts: DeliveryParts, wabaId: string, value: Record<string, unknown>): void {
  const event = shortString(value.event, 64)
  if (!event) return
  const display = shortString(value.display_phone_number, 64)?.replace(/[^0-9]/g, '')
  const rating = shortString(value.quality_rating ?? value.current_quality_rating, 32) ?? null
  parts.audience.push({ kind: 'quality', wabaId, digits: display || null, event, rating })
}

/** `user_preferences`: a user stopped or resumed marketing messages. */
function readPreferences (parts: DeliveryParts, aside: Aside, value: Record<string, unknown>): void {
  const phoneNumberId = idString((value.metadata as { phone_number_id?: unknown } | undefined)?.phone_number_id)
  if (!phoneNumberId) return aside({ kind: 'rejected', reason: 'missing_phone_number_id', field: 'metadata.phone_number_id', event: value })
  for (const preference of arrayOf<{ wa_id?: unknown, user_id?: unknown, category?: unknown, value?: unknown }>(value.user_preferences)) {
    if (preference.category !== 'marketing_messages' || (preference.value !== 'stop' && preference.value !== 'resume')) continue
    // the user by phone number, by business-scoped user id (CONTRACT.md 16), or both: each name is listed
    const phone = shortString(preference.wa_id, 64)?.replace(/^\+/, '')
    const userId = typeof preference.user_id === 'string' && USER_ID_RE.test(preference.user_id) ? preference.user_id : undefined
    for (const recipient of [phone, userId]) {
      if (recipient) parts.audience.push({ kind: 'preference', phoneNumberId, recipient, value: preference.value })
    }
  }
}

/** The upstream's error codes, comma-separated, for a log line or a record (never their texts). */
function codesOf (errors: UpstreamErrorValue[]): string {
  return errors.map(error => typeof error.code === 'number' || typeof error.code === 'string' ? String(error.code).slice(0, 32) : '?').join(',')
}
