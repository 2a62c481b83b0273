import { cursorCodec } from '../resources/cursor.js'

/** The opaque `next_cursor` of the erasure list: its page's last erasure. */
export const erasureCursor = cursorCodec('e1:', /^era_[0-9a-z]{1,60}$/)
