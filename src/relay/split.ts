import type { RoutedTarget } from '../store/relays.js'
import type { ReceivedDelivery } from '../webhooks/delivery.js'
import { idString, isObject } from '../webhooks/payload.js'


export const listOf = (value: unknown): unknown[] => Array.isArray(value) ? value : []

/** The number a change is about, when its value names one (`messages`, `user_preferences`, `calls`, …). */
export function numberOf (change: unknown): string | undefined {
  if (!isObject(change) || !isObject(change.value) || !isObject(change.value.metadata)) return undefined
  return idString(change.value.metadata.phone_number_id)
}

/**
 * Whether a change of an entry for the target's WABA is the target's: a change about a number is its
 * workspace's only when the number is (`numbers`: phone_number_id → workspace), and the target's
 * filters take it (`phone_number_ids` filters the changes of field `messages` only).
 */
function takes (target: RoutedTarget, change: unknown, numbers: ReadonlyMap<string, string>): boolean {
  if (!isObject(change) || typeof change.field !== 'string') return false
  const number = numberOf(change)
  if (number !== undefined && numbers.get(number) !== target.workspaceId) return false
  if (target.fields !== null && !target.fields.includes(change.field)) return false
  return change.field !== 'messages' || target.phoneNumberIds === null || (number !== undefined && target.phoneNumberIds.includes(number))
}

/**
 * What one target receives of one delivery (CONTRACT.md 18): Meta's bytes as they were signed when
 * every change is the target's; otherwise the same JSON with only its entries and changes, in Meta's
 * order and shape; nothing when none is.
 */
export function shareOf (received: ReceivedDelivery, target: RoutedTarget, numbers: ReadonlyMap<string, string>): Buffer | undefined {
  let whole = true
  const entries: unknown[] = []
  for (const entry of listOf(received.body.entry)) {
    const changes = isObject(entry) ? listOf(entry.changes) : []
    const kept = isObject(entry) && idString(entry.id) === target.wabaId ? changes.filter(change => takes(target, change, numbers)) : []
    if (kept.length < changes.length || !isObject(entry)) whole = false
    if (kept.length > 0) entries.push(kept.length === changes.length ? entry : { ...entry as object, changes: kept })
  }
  if (entries.length === 0) return undefined
  return whole ? received.raw : Buffer.from(JSON.stringify({ ...received.body, entry: entries }))
}

