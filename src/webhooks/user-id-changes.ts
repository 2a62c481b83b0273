import { USER_ID } from '../resources/recipient.js'
import type { StoredInbound } from '../store/inbound.js'
import type { UserIdChange } from '../store/user-ids.js'
import { isObject } from './payload.js'

const USER_ID_RE = new RegExp(USER_ID)
// both system messages report the ids a user had before (a changed number regenerates them too)
const ID_CHANGES = new Set(['user_changed_user_id', 'user_changed_number'])

const userIdOf = (value: unknown): string | undefined => typeof value === 'string' && USER_ID_RE.test(value) ? value : undefined

/**
 * The new business-scoped user id a system message announces: `system.user_id` (the upstream sends
 * the new values beside `previous_user_id`), else the message's own `from_user_id`.
 */
export function announcedUserId (message: Record<string, unknown>): string | undefined {
  if (message.type !== 'system' || !isObject(message.system) || !ID_CHANGES.has(String(message.system.type))) return undefined
  return userIdOf(message.system.user_id) ?? userIdOf(message.system.new_user_id) ?? userIdOf(message.from_user_id)
}

/** What the stored system messages replaced: each previous id (and previous parent id) linked to its successor. */
export function userIdChanges (inbound: StoredInbound[]): UserIdChange[] {
  return inbound.flatMap(message => {
    const payload = message.payload
    if (!isObject(payload) || !isObject(payload.system)) return []
    const newUserId = announcedUserId(payload)
    const oldUserId = userIdOf(payload.system.previous_user_id)
    const newParent = userIdOf(payload.system.parent_user_id)
    const oldParent = userIdOf(payload.system.previous_parent_user_id)
    return [
      ...(newUserId && oldUserId ? [{ workspaceId: message.workspaceId, oldUserId, newUserId }] : []),
      ...(newParent && oldParent ? [{ workspaceId: message.workspaceId, oldUserId: oldParent, newUserId: newParent }] : [])
    ]
  })
}
