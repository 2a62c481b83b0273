import { invalidRequest } from '../errors.js'

// A keyset as the opaque next_cursor: the last item's sortable time and its key, nothing else.
const PREFIX = 'c1:'
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const KEY = /^[\w.:-]{1,200}$/

export function encodeKeyset (parts: string[]): string {
  return Buffer.from(PREFIX + JSON.stringify(parts)).toString('base64url')
}

/** The keyset a cursor holds (a time, then `keys` more parts); 422 on `cursor` for anything we could not have issued. */
export function decodeKeyset (cursor: string, keys: number): string[] {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  let parts: unknown
  try {
    parts = text.startsWith(PREFIX) ? JSON.parse(text.slice(PREFIX.length)) : undefined
  } catch {
    parts = undefined
  }
  const valid = Array.isArray(parts) && parts.length === keys + 1 && parts.every(part => typeof part === 'string') &&
    TIME.test(parts[0] as string) && parts.slice(1).every(part => KEY.test(part as string)) && encodeKeyset(parts as string[]) === cursor
  if (!valid) throw invalidRequest('cursor: is not a cursor this API issued; pass next_cursor unchanged', 'cursor')
  return parts as string[]
}
