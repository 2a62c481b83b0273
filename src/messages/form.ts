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

/** application/x-www-form-urlencoded, and multipart fields re-encoded as such. */
export function parseFormBody (text: string): Record<string, unknown> {
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
  const preview = fields.preview_url
  if (typeof preview === 'string' && Object.hasOwn(BOOLEAN_WORDS, preview.toLowerCase())) fields.preview_url = BOOLEAN_WORDS[preview.toLowerCase()]
  return fields
}
