import { invalidRequest, type AppError } from '../errors.js'

/** Headers that mean one thing: given twice, which one counts is a guess, so neither does (CONTRACT.md 12). */
const SINGLE_HEADERS = new Map([
  'Authorization', 'Content-Type', 'Content-Length', 'Content-Encoding', 'Idempotency-Key', 'Prefer', 'X-Hub-Signature-256', 'Host'
].map(name => [name.toLowerCase(), name]))

const MAX_PARAMETERS = 100
const MAX_VALUE_LENGTH = 4096
// C0 controls and DEL: no query value or path segment of this gateway carries one, and a NUL breaks PostgreSQL text
const CONTROL = /[\u0000-\u001f\u007f]/
// what may stand in a request target unencoded (RFC 3986); anything else is a client that did not encode
const TARGET_CHARS = /^[\x21-\x7e]*$/

/**
 * The first thing wrong with a request's target (path and query) or its headers, as the 422 that
 * names it, or undefined. Checked once for every route, before anything reads a value, so that no
 * route meets a NUL, a lone surrogate, a malformed escape or a repeated parameter.
 */
export function requestShapeError (url: string, rawHeaders: readonly string[]): AppError | undefined {
  return headerError(rawHeaders) ?? targetError(url)
}

function headerError (rawHeaders: readonly string[]): AppError | undefined {
  const seen = new Set<string>()
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    const shown = SINGLE_HEADERS.get(name)
    if (!shown) continue
    if (seen.has(name)) return invalidRequest(`${shown} must be given once; the request has it more than once`, shown)
    seen.add(name)
  }
  return undefined
}

function targetError (url: string): AppError | undefined {
  const mark = url.indexOf('?')
  const path = mark < 0 ? url : url.slice(0, mark)
  if (!TARGET_CHARS.test(path)) return invalidRequest('The path has characters that are not percent-encoded', 'path')
  for (const segment of path.split('/')) {
    const decoded = strictDecode(segment)
    if (decoded === undefined) return invalidRequest('The path has a malformed percent-encoding (each escape must spell UTF-8)', 'path')
    if (CONTROL.test(decoded)) return invalidRequest('The path must not contain control characters (NUL included)', 'path')
  }
  return mark < 0 ? undefined : queryError(url.slice(mark + 1))
}

function queryError (query: string): AppError | undefined {
  const pairs = query.split('&').filter(pair => pair !== '')
  if (pairs.length > MAX_PARAMETERS) return invalidRequest(`The query string has ${pairs.length} parameters; at most ${MAX_PARAMETERS} are accepted`, 'query')
  const names = new Set<string>()
  for (const pair of pairs) {
    const equals = pair.indexOf('=')
    const rawName = equals < 0 ? pair : pair.slice(0, equals)
    const name = strictDecode(rawName.replace(/\+/g, ' '))
    // a name that cannot be read is named as it was written, cut short and printable
    const shown = name !== undefined && !CONTROL.test(name) ? name.slice(0, 100) : rawName.replace(/[^\x21-\x7e]/g, '?').slice(0, 100)
    if (!TARGET_CHARS.test(pair)) return invalidRequest(`${shown}: has characters that are not percent-encoded`, shown)
    if (name === undefined) return invalidRequest(`The query parameter ${shown} has a malformed name (percent-escapes must spell UTF-8)`, 'query')
    if (CONTROL.test(name)) return invalidRequest('A query parameter\'s name has control characters', 'query')
    const value = equals < 0 ? '' : strictDecode(pair.slice(equals + 1).replace(/\+/g, ' '))
    if (value === undefined) return invalidRequest(`${shown}: malformed percent-encoding (each escape must spell UTF-8, no lone surrogates)`, shown)
    if (CONTROL.test(value)) return invalidRequest(`${shown}: must not contain control characters (NUL included)`, shown)
    if (value.length > MAX_VALUE_LENGTH) return invalidRequest(`${shown}: longer than ${MAX_VALUE_LENGTH} characters`, shown)
    if (names.has(name)) return invalidRequest(`${shown}: given more than once; give each query parameter once`, shown)
    names.add(name)
  }
  return undefined
}

/** decodeURIComponent, which refuses an escape that is not UTF-8 (`%C0%AF`, `%ED%A0%80`, a lone `%`): undefined then. */
function strictDecode (text: string): string | undefined {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

// a lone surrogate cannot be stored as UTF-8; tab, newline and carriage return are a textarea's own
const UNSTORABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** The first field of a parsed form whose text cannot be stored (a NUL, another control character, a lone surrogate), as the 422 naming it. */
export function formFieldError (body: unknown, unchecked: ReadonlySet<string> = new Set()): AppError | undefined {
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return undefined
  for (const [name, value] of Object.entries(body)) {
    if (unchecked.has(name)) continue
    const values: unknown[] = Array.isArray(value) ? value : [value]
    if (values.some(item => typeof item === 'string' && UNSTORABLE.test(item))) {
      return invalidRequest(`${name}: must not contain control characters (NUL included) or lone surrogates`, name)
    }
  }
  return undefined
}
