import { invalidRequest } from '../errors.js'

const PREFIX = 'c1:'
const CAMPAIGN_ID = /^cmp_[0-9a-z]{1,60}$/

/** The opaque `next_cursor` of the campaign list: the last campaign of a page. */
export function encodeCampaignCursor (campaignId: string): string {
  return Buffer.from(PREFIX + campaignId).toString('base64url')
}

/** The campaign a cursor names; 422 on `cursor` for anything we could not have issued. */
export function decodeCampaignCursor (cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  const id = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : ''
  if (!CAMPAIGN_ID.test(id) || encodeCampaignCursor(id) !== cursor) throw badCampaignCursor()
  return id
}

export const badCampaignCursor = () => invalidRequest('cursor: is not a cursor this API issued; pass next_cursor unchanged', 'cursor')
