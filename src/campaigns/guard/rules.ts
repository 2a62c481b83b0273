import type { PausedReason } from '../../../db/schema.js'

// The quality guard's rules (CONTRACT.md 21) as pure functions: no I/O, no clock of their own.

/** Error codes that say people block, report or cap the number's marketing, or that the number is unwell. */
export const QUALITY_CODES = ['131049', '131050', '131048', '131031', '130497'] as const

/** The reasons the guard pauses for and can lift by itself; failure_rate and manual are lifted by a person. */
export const SELF_CLEARING: readonly PausedReason[] = ['number_flagged', 'tier_downgraded', 'template_paused', 'template_quality_red']

/** What a signal asks of the campaigns it concerns: pause them for `reason`, or start the recovery of those paused for it. */
export type Verdict = { act: 'pause' | 'clear', reason: PausedReason }

const GOOD_RATINGS = new Set(['GREEN', 'YELLOW'])

/** A `phone_number_quality_update` event: FLAGGED pauses, UNFLAGGED starts the recovery; tier events are tierVerdict's. */
export function numberEventVerdict (event: string | undefined): Verdict | undefined {
  if (event === 'FLAGGED') return { act: 'pause', reason: 'number_flagged' }
  if (event === 'UNFLAGGED') return { act: 'clear', reason: 'number_flagged' }
  return undefined
}

/** A read of the number's node: turning RED pauses, leaving RED for YELLOW or GREEN starts the recovery; the same rating again says nothing. */
export function ratingVerdict (before: string | null, after: string | null): Verdict | undefined {
  if (after === before) return undefined
  if (after === 'RED') return { act: 'pause', reason: 'number_flagged' }
  if (before === 'RED' && after !== null && GOOD_RATINGS.has(after)) return { act: 'clear', reason: 'number_flagged' }
  return undefined
}

/** A template's new status or quality: PAUSED/DISABLED or RED pause, APPROVED or GREEN/YELLOW start the recovery. */
export function templateVerdict (change: { status?: string, quality?: string }): Verdict | undefined {
  if (change.status === 'PAUSED' || change.status === 'DISABLED') return { act: 'pause', reason: 'template_paused' }
  if (change.status === 'APPROVED') return { act: 'clear', reason: 'template_paused' }
  if (change.quality === 'RED') return { act: 'pause', reason: 'template_quality_red' }
  if (change.quality !== undefined && GOOD_RATINGS.has(change.quality)) return { act: 'clear', reason: 'template_quality_red' }
  return undefined
}

/** A limit of unique recipients per 24 h; null: unlimited. */
export type Limit = number | null

/** A tier change, by its event (DOWNGRADE, UPGRADE) or by the limits before and after it; a drop wins over a rise. */
export function tierVerdict (event: string | undefined, before: Limit, after: Limit): Verdict | undefined {
  const lower = after !== null && (before === null || after < before)
  const higher = before !== null && (after === null || after > before)
  if (event === 'DOWNGRADE' || lower) return { act: 'pause', reason: 'tier_downgraded' }
  if (event === 'UPGRADE' || higher) return { act: 'clear', reason: 'tier_downgraded' }
  return undefined
}

/** A tier drop pauses a campaign only when its recipients not yet sent exceed what the limit has left. */
export function exceedsLimit (remaining: number, limit: Limit, used24h: number): boolean {
  return limit !== null && remaining > 0 && remaining > limit - used24h
}

export interface FailureSettings { window: number, rate: number }

/** Once `window` messages have finished, more than `rate` of the last `window` failed with a quality code. */
export function failureRateExceeded (last: { finished: number, failed: number }, settings: FailureSettings): boolean {
  return last.finished >= settings.window && last.failed / last.finished > settings.rate
}

/** QUALITY_CODES and the codes of QUALITY_GUARD_FAILURE_CODES. */
export function failureCodes (setting: string): string[] {
  return [...new Set([...QUALITY_CODES, ...setting.split(',').map(code => code.trim()).filter(code => code.length > 0)])]
}

/** When a cause cleared now resumes its campaigns. */
export function resumeAt (clearedAt: Date, recoveryMs: number): Date {
  return new Date(clearedAt.getTime() + recoveryMs)
}
