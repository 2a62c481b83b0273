/** The parts of the upstream's webhook envelope the gateway reads (upstream-facts.md section 4). */
export interface WebhookBody {
  object?: string
  entry?: WebhookEntry[]
}

export interface WebhookEntry {
  id?: string
  changes?: { field?: string, value?: unknown }[]
}

export interface MessagesValue {
  metadata?: { phone_number_id?: string, display_phone_number?: string }
  statuses?: StatusValue[]
  messages?: InboundValue[]
}

export interface StatusValue {
  id?: string
  status?: string
  timestamp?: string
  recipient_id?: string
  biz_opaque_callback_data?: string
  pricing?: { category?: string }
  errors?: { code?: number, title?: string, message?: string, error_data?: { details?: string } }[]
}

export interface InboundValue {
  from?: string
  id?: string
  timestamp?: string
  type?: string
}

export interface TemplateStatusValue {
  event?: string
  message_template_name?: string
  message_template_language?: string
}

export interface QualityUpdateValue {
  display_phone_number?: string
  event?: string
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const arrayOf = <T>(value: unknown): T[] => Array.isArray(value) ? value.filter(isObject) as T[] : []

/** Unix seconds as the upstream writes them ("1750857384"); now when missing or malformed. */
export function upstreamTime (seconds: unknown): Date {
  const value = Number(seconds)
  return Number.isFinite(value) && value > 0 ? new Date(value * 1000) : new Date()
}
