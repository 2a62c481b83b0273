import type { StoredTemplate } from './accounts.js'
import type { EmulatorContext } from './context.js'
import { sendTemplateStatusUpdate } from './webhook-api.js'

/** A name starting with this is rejected at review, as Meta rejects a badly formatted template (CONTRACT.md 20). */
export const REJECTED_PREFIX = 'reject_'

/**
 * A created or edited template is PENDING until its review ends after `reviews.delayMs`: APPROVED,
 * or REJECTED for INVALID_FORMAT, with the message_template_status_update Meta sends.
 */
export function startReview (context: EmulatorContext, wabaId: string, template: StoredTemplate): void {
  template.status = 'PENDING'
  template.rejectedReason = undefined
  const timer = setTimeout(() => {
    context.reviews.timers.delete(timer)
    if (template.status !== 'PENDING') return
    const rejected = template.name.startsWith(REJECTED_PREFIX)
    if (rejected) template.rejectedReason = 'INVALID_FORMAT'
    const update = { wabaId, name: template.name, language: template.language, event: rejected ? 'REJECTED' : 'APPROVED', reason: rejected ? 'INVALID_FORMAT' : 'NONE' }
    // no callback registered, or nobody listening: the review's outcome stays readable on the node
    sendTemplateStatusUpdate(context, update).catch(() => {})
  }, context.reviews.delayMs)
  context.reviews.timers.add(timer)
}

const ENUM_KEYS = new Set(['type', 'format', 'otp_type'])

/** Components as GET answers them: enums in uppercase whatever case they were sent in (upstream-facts.md 8.1). */
export function uppercaseEnums (value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map(item => uppercaseEnums(item))
  if (typeof value === 'string') return key !== undefined && ENUM_KEYS.has(key) ? value.toUpperCase() : value
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, uppercaseEnums(item, name)]))
}
