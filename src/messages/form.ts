import qs from 'qs'
import { invalidRequest } from '../errors.js'
import { assertPlainData, parseJson } from './json-body.js'

// PHP's nesting (components[0][parameters][0][text]=Hi) within bounds: no prototype keys, and
// limits that throw rather than silently drop or flatten what exceeds them.
const QS_OPTIONS: qs.IParseOptions = {
  allowPrototypes: false,
  allowDots: false,
  depth: 8,
  strictDepth: true,
  arrayLimit: 100,
  parameterLimit: 1000,
  throwOnLimitExceeded: true,
  duplicates: 'combine'
}

const JSON_FIELDS = ['components', 'interactive']
const BOOLEAN_WORDS: Record<string, boolean> = { true: true, 1: true, false: false, 0: false }
// Values the upstream wants as JSON numbers, wherever they sit in the components (currency, date_time).
const NUMERIC_KEYS = new Set(['amount_1000', 'day_of_week', 'year', 'month', 'day_of_month', 'hour', 'minute'])

/** application/x-www-form-urlencoded, and multipart fields re-encoded as such. */
export function parseFormBody (text: string): Record<string, unknown> {
  if (looksLikeJson(text)) throw invalidRequest('The body is JSON but was sent as form fields (Content-Type: application/x-www-form-urlencoded): send it with Content-Type: application/json')
  let fields: Record<string, unknown>
  try {
    fields = qs.parse(text, QS_OPTIONS)
  } catch (error) {
    throw invalidRequest(`The form exceeds a limit: ${(error as Error).message}`)
  }
  assertPlainData(fields, 'The form')
  return decodeFormValues(fields)
}

/** Form values are strings: these fields may carry JSON, and a boolean arrives as a word. */
function decodeFormValues (fields: Record<string, unknown>): Record<string, unknown> {
  for (const name of JSON_FIELDS) {
    const value = fields[name]
    if (typeof value === 'string') fields[name] = parseJson(value, name, name)
  }
  if (typeof fields.components === 'object' && fields.components !== null) numbersIn(fields.components)
  const preview = fields.preview_url
  if (typeof preview === 'string' && Object.hasOwn(BOOLEAN_WORDS, preview.toLowerCase())) fields.preview_url = BOOLEAN_WORDS[preview.toLowerCase()]
  return fields
}

/** A form can only say "100990": the upstream refuses a string amount_1000, so an integer-looking value becomes a number. */
function numbersIn (value: object): void {
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'string' && NUMERIC_KEYS.has(key) && /^-?\d{1,15}$/.test(inner)) (value as Record<string, unknown>)[key] = Number(inner)
    else if (typeof inner === 'object' && inner !== null) numbersIn(inner)
  }
}

/** curl -d '{…}' without -H sends a form Content-Type: say so rather than report missing fields. */
function looksLikeJson (text: string): boolean {
  const trimmed = text.trim()
  if (!/^[[{]/.test(trimmed)) return false
  try { JSON.parse(trimmed); return true } catch { return false }
}
