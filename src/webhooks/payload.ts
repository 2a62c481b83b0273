/** The parts of the upstream's webhook envelope the gateway reads (upstream-facts.md section 4). */
export interface WebhookBody {
  object?: string
  entry?: unknown
}

export interface WebhookEntry {
  id?: unknown
  changes?: unknown
}

export interface MessagesValue {
  metadata?: { phone_number_id?: unknown }
  statuses?: unknown
  messages?: unknown
  errors?: unknown
}

export interface StatusValue {
  id?: unknown
  status?: unknown
  timestamp?: unknown
  biz_opaque_callback_data?: unknown
  pricing?: { category?: unknown }
  errors?: unknown
}

export interface UpstreamErrorValue { code?: unknown, title?: unknown, message?: unknown, error_data?: { details?: unknown } }

export interface InboundValue {
  from?: unknown
  from_user_id?: unknown
  id?: unknown
  timestamp?: unknown
  type?: unknown
}

/** message_template_status_update, template_category_update and message_template_quality_update alike. */
export interface TemplateValue {
  event?: unknown
  message_template_id?: unknown
  message_template_name?: unknown
  message_template_language?: unknown
  new_category?: unknown
  new_quality_score?: unknown
  reason?: unknown
  other_info?: { title?: unknown }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const arrayOf = <T>(value: unknown): T[] => Array.isArray(value) ? value.filter(isObject) as T[] : []

/** A non-empty string of at most `max` characters (ids end up in btree indexes, whose rows are limited), else undefined. */
export function shortString (value: unknown, max = 512): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined
}

/** An id the upstream may write as a number (message_template_id) or a string. */
export function idString (value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  return shortString(value, 128)
}

// Upstream timestamps are unix seconds; 1e10 s is the year 2286, so anything above is milliseconds or garbage.
const LATEST_SECONDS = 1e10

/**
 * Unix seconds as the upstream writes them ("1750857384", sometimes a number). undefined when
 * absent (the caller uses the time of receipt); 'invalid' when present but not seconds in range.
 */
export function upstreamTime (seconds: unknown): Date | 'invalid' | undefined {
  if (seconds === undefined || seconds === null) return undefined
  const value = typeof seconds === 'number' ? seconds : typeof seconds === 'string' && /^\d{1,12}$/.test(seconds) ? Number(seconds) : NaN
  return Number.isInteger(value) && value > 0 && value < LATEST_SECONDS ? new Date(value * 1000) : 'invalid'
}

// NUL, or a UTF-16 surrogate without its pair: PostgreSQL's text and jsonb refuse both.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const DEEPEST = 64

/** The path of the first string (value or key) the database cannot store, or of a nesting too deep to walk; undefined when all is storable. */
export function unstorablePath (value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path || '.' : undefined
  if (typeof value !== 'object' || value === null) return undefined
  if (depth > DEEPEST) return path
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = unstorablePath(value[index], `${path}[${index}]`, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, child] of Object.entries(value)) {
    // the key itself is content: its path names its parent only
    if (UNSTORABLE.test(key)) return path || '.'
    const found = unstorablePath(child, path ? `${path}.${key}` : key, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}
