import { invalidRequest } from '../errors.js'

/**
 * One opaque `next_cursor` codec per list: the last row of a page, prefixed by the list's tag so a
 * cursor of one list is refused by another (422 on `cursor` for anything we could not have issued).
 */
export function cursorCodec (prefix: string, idPattern: RegExp) {
  const bad = () => invalidRequest('cursor: is not a cursor this API issued; pass next_cursor unchanged', 'cursor')
  const encode = (id: string): string => Buffer.from(prefix + id).toString('base64url')
  function decode (cursor: string): string {
    const decoded = Buffer.from(cursor, 'base64url').toString()
    const id = decoded.startsWith(prefix) ? decoded.slice(prefix.length) : ''
    if (!idPattern.test(id) || encode(id) !== cursor) throw bad()
    return id
  }
  return { encode, decode, bad }
}
