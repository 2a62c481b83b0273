import { invalidRequest } from '../errors.js'

const PREFIX = 's1:'
const ID = /^sup_[0-9a-z]{1,60}$/

/** The opaque `next_cursor` of the suppression list: its page's last entry. */
export function encodeSuppressionCursor (id: string): string {
  return Buffer.from(PREFIX + id).toString('base64url')
}

export function decodeSuppressionCursor (cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  const id = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : ''
  if (!ID.test(id) || encodeSuppressionCursor(id) !== cursor) throw badSuppressionCursor()
  return id
}

export const badSuppressionCursor = () => invalidRequest('cursor: is not a cursor this API issued; pass next_cursor unchanged', 'cursor')
