import { PHONE } from '../messages/schemas.js'
import { recipientView, USER_ID } from '../resources/recipient.js'
import type { Suppression } from '../store/suppressions.js'

const PHONE_RE = new RegExp(PHONE)
const USER_ID_RE = new RegExp(USER_ID)

/** An entry as the API and the CLI show it: `to` or `recipient_user_id`, the other null (CONTRACT.md 14, 16). */
export const suppressionView = (row: Suppression) => ({
  // an erased person's opt-out names nobody: it is kept as an HMAC of the number (CONTRACT.md 17)
  ...(row.erased ? { to: null, recipient_user_id: null } : recipientView(row.recipient)),
  erased: row.erased,
  reason: row.reason,
  created_at: row.createdAt.toISOString()
})

/** Who a suppression request names, or why it names nobody (the field at fault). */
export type Target = { recipient: string } | { problem: string, field: 'to' | 'recipient' }

/**
 * `to` (a phone number) or `recipient` (a business-scoped user id), at most one; `required` for an
 * add or a removal. A `+` written raw in a query string arrives as a space: taken as the `+`.
 */
export function suppressionTarget (given: { to?: string, recipient?: string }, required: boolean): Target | undefined {
  const { to, recipient } = given
  if (to !== undefined && recipient !== undefined) return { problem: 'give either to (a phone number) or recipient (a business-scoped user id), not both', field: 'to' }
  if (recipient !== undefined) {
    return USER_ID_RE.test(recipient) ? { recipient } : { problem: 'recipient must be a business-scoped user id: two capital letters, a dot, then 1 to 128 of A-Z a-z 0-9 . _ -', field: 'recipient' }
  }
  if (to !== undefined) {
    const phone = to.replace(/^ /, '+')
    return PHONE_RE.test(phone) ? { recipient: phone.replace(/^\+/, '') } : { problem: 'to must be a phone number: an optional +, then 7 to 15 digits', field: 'to' }
  }
  return required ? { problem: 'to or recipient is required: to for a phone number, recipient for a business-scoped user id', field: 'to' } : undefined
}
