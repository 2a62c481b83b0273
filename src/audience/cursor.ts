import { cursorCodec } from '../resources/cursor.js'

/** The opaque `next_cursor` of the suppression list: its page's last entry. */
const suppressionCursor = cursorCodec('s1:', /^sup_[0-9a-z]{1,60}$/)
export const { encode: encodeSuppressionCursor, decode: decodeSuppressionCursor, bad: badSuppressionCursor } = suppressionCursor
