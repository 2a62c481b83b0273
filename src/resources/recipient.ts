/** A business-scoped user id (CONTRACT.md 16): two capital letters, a dot, then 1–128 of A–Z a–z 0–9 . _ - */
export const USER_ID = '^[A-Z]{2}\\.[A-Za-z0-9._-]{1,128}$'

/**
 * Who a message is for, as one value: the log record's `recipient` holds a phone number's digits or
 * a business-scoped user id as given. The two never collide (an id starts with two capitals and a
 * dot, a number is digits only), so pacing, the queue's order per recipient, suppressions and
 * lookups key on this one column whichever way the send named its recipient.
 */
export function isUserId (recipient: string): boolean {
  return /^[A-Z]{2}\./.test(recipient)
}

/** The API's two fields for a recipient (M, events, the CLI): `to` null when only the user id is known. */
export function recipientView (recipient: string): { to: string | null, recipient_user_id: string | null } {
  // an erased record's recipient is '' (CONTRACT.md 17)
  if (recipient === '') return { to: null, recipient_user_id: null }
  return isUserId(recipient) ? { to: null, recipient_user_id: recipient } : { to: recipient, recipient_user_id: null }
}
