// Meta's limits on editing an APPROVED template (upstream-facts.md 8.3); REJECTED and PAUSED ones may be edited freely.
export const DAY_MS = 24 * 3600_000
export const EDITS_PER_DAY = 1
export const EDITS_PER_30_DAYS = 10
export const LOCK_MS = 30 * DAY_MS
export const EDITABLE_STATUSES = ['APPROVED', 'REJECTED', 'PAUSED'] as const

/**
 * When the next edit of an approved template may be made, given Outbound's own edits of it (any
 * order): null when it may be edited now.
 */
export function nextEditAt (edits: readonly Date[], now: Date): Date | null {
  const recent = edits.map(at => at.getTime()).filter(at => at > now.getTime() - 30 * DAY_MS).sort((a, b) => b - a)
  const frees = [now.getTime()]
  const today = recent.filter(at => at > now.getTime() - DAY_MS)
  if (today.length >= EDITS_PER_DAY) frees.push(today[EDITS_PER_DAY - 1] + DAY_MS)
  if (recent.length >= EDITS_PER_30_DAYS) frees.push(recent[EDITS_PER_30_DAYS - 1] + 30 * DAY_MS)
  const at = Math.max(...frees)
  return at > now.getTime() ? new Date(at) : null
}

export function isEditable (status: string): boolean {
  return (EDITABLE_STATUSES as readonly string[]).includes(status)
}

/** A delete locks the name for 30 days when the template had been approved (upstream-facts.md 8.4). */
export function locksName (status: string): boolean {
  return status === 'APPROVED' || status === 'PAUSED'
}
