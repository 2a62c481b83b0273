import type { FastifyBaseLogger } from 'fastify'
import type { Stores } from '../stores.js'
import type { StatusEvent } from '../store/status-events.js'
import { arrayOf, isObject, upstreamTime, type InboundValue, type MessagesValue, type StatusValue, type TemplateStatusValue, type WebhookBody } from './payload.js'

export interface WebhookDeps {
  stores: Pick<Stores, 'connections' | 'statusEvents' | 'inbound' | 'templates'>
  log: FastifyBaseLogger
  /** the WABA's numbers may have changed quality, throughput or tier: re-read them */
  refreshNumbers(wabaId: string): void
}

export interface WebhookSummary { statuses: Record<string, number>, inbound: number, templates: number }

const STATUSES = new Set(['sent', 'delivered', 'read', 'failed'])
// Events that name no status of their own map to the status the template is left in.
const TEMPLATE_STATUS_OF_EVENT: Record<string, string> = { REINSTATED: 'APPROVED', UNARCHIVED: 'APPROVED', FLAGGED: 'APPROVED' }

/** Applies one verified delivery: status changes, inbound messages, template and number updates. */
export async function processWebhook (deps: WebhookDeps, body: WebhookBody): Promise<WebhookSummary> {
  const summary: WebhookSummary = { statuses: {}, inbound: 0, templates: 0 }
  if (body.object !== 'whatsapp_business_account') return summary
  for (const entry of arrayOf<NonNullable<WebhookBody['entry']>[number]>(body.entry)) {
    for (const change of arrayOf<{ field?: string, value?: unknown }>(entry.changes)) {
      if (!isObject(change.value)) continue
      switch (change.field) {
        case 'messages': await applyMessages(deps, change.value as MessagesValue, summary); break
        case 'message_template_status_update': summary.templates += await applyTemplateStatus(deps, String(entry.id), change.value as TemplateStatusValue); break
        case 'phone_number_quality_update':
        case 'business_capability_update': deps.refreshNumbers(String(entry.id)); break
        default: deps.log.debug({ field: change.field }, 'webhook field not handled')
      }
    }
  }
  return summary
}

async function applyMessages (deps: WebhookDeps, value: MessagesValue, summary: WebhookSummary): Promise<void> {
  const phoneNumberId = value.metadata?.phone_number_id
  if (typeof phoneNumberId !== 'string') return
  const events = arrayOf<StatusValue>(value.statuses).map(status => statusEvent(phoneNumberId, status)).filter(event => event !== undefined)
  const outcomes = events.length > 0 ? await deps.stores.statusEvents.recordAll(events) : []
  for (const outcome of outcomes) summary.statuses[outcome] = (summary.statuses[outcome] ?? 0) + 1
  if (summary.statuses.unknown) deps.log.info({ phoneNumberId, count: summary.statuses.unknown }, 'statuses for unknown messages kept aside')
  const inbound = arrayOf<InboundValue>(value.messages)
  if (inbound.length === 0) return
  const number = await deps.stores.connections.activeNumber(phoneNumberId)
  if (!number) {
    deps.log.warn({ phoneNumberId }, 'inbound message for a number no workspace has connected; ignored')
    return
  }
  for (const message of inbound) {
    if (typeof message.id !== 'string' || typeof message.from !== 'string') continue
    const stored = await deps.stores.inbound.insert({
      workspaceId: number.workspaceId,
      phoneNumberId,
      wamid: message.id,
      from: message.from,
      type: typeof message.type === 'string' ? message.type : 'unknown',
      payload: message,
      receivedAt: upstreamTime(message.timestamp)
    })
    if (stored) summary.inbound++
  }
}

function statusEvent (phoneNumberId: string, status: StatusValue): StatusEvent | undefined {
  if (typeof status.id !== 'string' || typeof status.status !== 'string' || !STATUSES.has(status.status)) return undefined
  const [error] = arrayOf<NonNullable<StatusValue['errors']>[number]>(status.errors)
  return {
    wamid: status.id,
    status: status.status as StatusEvent['status'],
    phoneNumberId,
    upstreamTimestamp: upstreamTime(status.timestamp),
    recordId: typeof status.biz_opaque_callback_data === 'string' ? status.biz_opaque_callback_data : undefined,
    errorCode: error?.code !== undefined ? String(error.code) : undefined,
    errorText: error ? [error.title ?? error.message, error.error_data?.details].filter(Boolean).join(': ') : undefined,
    pricingCategory: typeof status.pricing?.category === 'string' ? status.pricing.category : undefined,
    payload: status
  }
}

async function applyTemplateStatus (deps: WebhookDeps, wabaId: string, value: TemplateStatusValue): Promise<number> {
  const { event, message_template_name: name, message_template_language: language } = value
  if (typeof event !== 'string' || typeof name !== 'string' || typeof language !== 'string') return 0
  return await deps.stores.templates.setStatus(wabaId, name, language, TEMPLATE_STATUS_OF_EVENT[event] ?? event)
}
