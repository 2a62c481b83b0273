import { invalidRequest } from '../errors.js'

const PREFIX = 'm1:'
const RECORD_ID = /^msg_[0-9a-z]{1,60}$/

/** The opaque `next_cursor`: the last message of a page. */
export function encodeCursor (messageId: string): string {
  return Buffer.from(PREFIX + messageId).toString('base64url')
}

/** The message a cursor names; 422 on `cursor` for anything we could not have issued. */
export function decodeCursor (cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  const id = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : ''
  if (!RECORD_ID.test(id) || encodeCursor(id) !== cursor) throw badCursor()
  return id
}

export const badCursor = () => invalidRequest('cursor: is not a cursor this API issued; pass next_cursor unchanged', 'cursor')
