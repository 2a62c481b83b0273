import { TextDecoder } from 'node:util'
import { invalidRequest, unsupportedMediaType } from '../errors.js'

// Nothing the API takes nests deeper; a deeper body would only cost stack when it is serialised.
const MAX_DEPTH = 32

/** An application/json body in whatever charset its Content-Type names (UTF-8 when none). */
export function parseJsonBody (contentType: string | undefined, raw: Buffer): unknown {
  const text = decode(raw, charsetOf(contentType), contentType)
  if (text.trim() === '') throw invalidRequest('The request body is empty')
  return parseJson(text, 'The request body')
}

/** JSON text that holds no prototype-polluting key and does not nest absurdly deep. */
export function parseJson (text: string, what: string, field?: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw invalidRequest(`${what} is not valid JSON: ${(error as Error).message}`, field)
  }
  assertPlainData(value, what, field)
  return value
}

// PostgreSQL cannot store either in jsonb, and neither belongs in a message.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * What every parsed body goes through. JSON.parse makes `__proto__` an own property, harmless until
 * some code merges the object into another; refusing it here means no later code has to care.
 */
export function assertPlainData (root: unknown, what: string, field?: string): void {
  const pending: [unknown, number, string | undefined][] = [[root, 0, field]]
  while (pending.length > 0) {
    const [value, depth, at] = pending.pop()!
    if (typeof value === 'string' && UNSTORABLE.test(value)) throw invalidRequest(`${at ?? what} contains a NUL character or invalid Unicode`, at)
    if (typeof value !== 'object' || value === null) continue
    if (depth >= MAX_DEPTH) throw invalidRequest(`${what} nests deeper than ${MAX_DEPTH} levels`, at)
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key]
      if (key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))) {
        throw invalidRequest(`${what} holds the forbidden key ${key === '__proto__' ? '__proto__' : 'constructor.prototype'}`, at)
      }
      if (UNSTORABLE.test(key)) throw invalidRequest(`${what} has a key with a NUL character or invalid Unicode`, at)
      pending.push([child, depth + 1, at ?? key])
    }
  }
}

function charsetOf (contentType: string | undefined): string {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8'
}

function decode (raw: Buffer, charset: string, contentType: string | undefined): string {
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder(charset, { fatal: true })
  } catch {
    throw unsupportedMediaType(contentType)
  }
  try {
    return decoder.decode(raw)
  } catch {
    throw invalidRequest(`The request body is not valid ${decoder.encoding}`)
  }
}
