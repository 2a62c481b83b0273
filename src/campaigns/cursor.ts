import { cursorCodec } from '../resources/cursor.js'

/** The opaque `next_cursor` of the campaign list: the last campaign of a page. */
const campaignCursor = cursorCodec('c1:', /^cmp_[0-9a-z]{1,60}$/)
export const { encode: encodeCampaignCursor, decode: decodeCampaignCursor, bad: badCampaignCursor } = campaignCursor
