import { setTimeout as sleep } from 'node:timers/promises'
import type { WabaState } from './accounts.js'
import { codeInfo } from './error-codes.js'
import type { Json } from './json.js'
import { envelope, messagesValue } from './notifications.js'
import { planStatuses, type ResolvedStatusOptions, type StatusStep } from './status-options.js'
import type { EmulatedNumber } from './types.js'
import type { WebhookSender } from './webhook-sender.js'

export interface AcceptedSend {
  wamid: string
  waba: WabaState
  number: EmulatedNumber
  to: string
  at: number
  bizOpaque?: string
  /** the template's category; undefined for a service message */
  category?: string
  /** a send by business-scoped user id: its statuses name the user by it */
  userId?: string
}

const ERROR_HREF = 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/'

export function scheduleStatuses (sender: WebhookSender, callback: string, options: ResolvedStatusOptions, send: AcceptedSend): void {
  const steps = planStatuses(options, send.at)
  sender.track(async function deliverStatuses (signal) {
    for (const step of steps) {
      await sleep(Math.max(0, send.at + step.offsetMs - Date.now()), undefined, { signal })
      const value = messagesValue(send.number, { statuses: [statusEntry(send, step, options)] })
      const body = envelope(send.waba.account.wabaId, 'messages', value)
      await sender.deliver(callback, body, signal)
      if (options.duplicate) await sender.deliver(callback, body, signal)
    }
  })
}

function statusEntry (send: AcceptedSend, step: StatusStep, options: ResolvedStatusOptions): Json {
  const entry: Json = { id: send.wamid, status: step.status, timestamp: String(step.timestamp), ...(send.userId !== undefined ? { recipient_user_id: send.userId } : { recipient_id: send.to }) }
  if (send.bizOpaque !== undefined) entry.biz_opaque_callback_data = send.bizOpaque
  if (step.status === 'sent' || step.status === 'delivered') entry.pricing = pricing(send.category)
  if (step.status === 'failed' && options.failWith) entry.errors = [asyncError(options.failWith)]
  return entry
}

function pricing (category: string | undefined): Json {
  if (category === undefined) return { billable: false, pricing_model: 'PMP', type: 'free_customer_service', category: 'service' }
  return { billable: true, pricing_model: 'PMP', type: 'regular', category: category.toLowerCase() }
}

function asyncError (failure: NonNullable<ResolvedStatusOptions['failWith']>): Json {
  const info = codeInfo(failure.code)
  const title = failure.title ?? info.title
  return { code: failure.code, title, message: title, error_data: { details: failure.details ?? info.details ?? title }, href: ERROR_HREF }
}
