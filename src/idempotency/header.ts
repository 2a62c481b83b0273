import { invalidRequest } from '../errors.js'

const PRINTABLE = /^[\x20-\x7e]{1,255}$/

/**
 * The Idempotency-Key header's value: 1–255 printable ASCII characters, given bare or as a
 * structured-field string (`"abc"`, whose quotes are not part of the key). undefined when absent.
 */
export function idempotencyKeyOf (header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (Array.isArray(header)) throw invalidRequest('Idempotency-Key must be given once', 'Idempotency-Key')
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(header)
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : header
  if (!PRINTABLE.test(key)) throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters', 'Idempotency-Key')
  return key
}
