import { invalidRequest } from '../errors.js'
import { throughputOf } from '../pacer/throughput.js'
import type { ActiveConnection } from '../store/connections.js'
import { DAY_MS, type MessagingLimitStore } from '../store/messaging-limit.js'
import type { UsageGroup, UsageStore } from '../store/usage.js'
import { countryOf } from './countries.js'
import { limitOfNumbers } from './tiers.js'

/** The numbers' quality signals since a time, oldest first (src/store/campaign-guard.ts). */
export type QualityHistoryOf = (numbers: string[], since: Date) => Promise<Map<string, Array<{ rating: string | null, event: string | null, at: Date }>>>

const HISTORY_MS = 30 * DAY_MS

/** GET /api/limits.php's numbers: each with its WABA's messaging limit and its use (shared by the WABA's numbers), and its last 30 days of quality signals. */
export async function limitsOf (active: ActiveConnection | undefined, messagingLimit: Pick<MessagingLimitStore, 'usage'>, throughputMps?: number, historyOf?: QualityHistoryOf) {
  if (!active) return []
  const limit = limitOfNumbers(active.numbers.map(number => number.messagingLimitTier))
  const usage = await messagingLimit.usage(active.connection.wabaId)
  const history = await historyOf?.(active.numbers.map(number => number.phoneNumberId), new Date(Date.now() - HISTORY_MS))
  return active.numbers.map(number => ({
    phone_number_id: number.phoneNumberId,
    display_phone_number: number.displayPhoneNumber,
    quality_rating: number.qualityRating,
    throughput_mps: throughputOf(number.throughputLevel, throughputMps),
    messaging_limit: {
      tier: number.messagingLimitTier ?? 'TIER_NOT_SET',
      limit,
      used_24h: usage.used,
      available: limit === null ? null : Math.max(0, limit - usage.used),
      next_slot_at: usage.oldest === null ? null : new Date(usage.oldest.getTime() + DAY_MS).toISOString()
    },
    quality_history: (history?.get(number.phoneNumberId) ?? []).map(signal => ({ rating: signal.rating, event: signal.event, at: signal.at.toISOString() }))
  }))
}

export interface UsageQuery { since?: string, until?: string, group?: UsageGroup }

/** The period and grouping of GET /api/usage.php; 422 naming since or until for a date that does not exist. */
export function usagePeriod (query: UsageQuery, now = new Date()): { since: Date, until: Date, group: UsageGroup } {
  const until = query.until === undefined ? now : dateOf(query.until, 'until')
  const since = query.since === undefined ? new Date(until.getTime() - 30 * DAY_MS) : dateOf(query.since, 'since')
  if (since.getTime() > until.getTime()) throw invalidRequest('since: must not be after until', 'since')
  return { since, until, group: query.group ?? 'day' }
}

function dateOf (text: string, field: string): Date {
  // a `+` written unencoded in a query string arrives as a space
  const date = new Date(text.replace(' ', '+'))
  // JavaScript rolls 2026-02-30 over to March 2: the calendar day written must exist
  const [year, month, day] = text.slice(0, 10).split('-').map(Number)
  const written = new Date(Date.UTC(year, month - 1, day))
  const exists = written.getUTCMonth() === month - 1 && written.getUTCDate() === day
  if (Number.isNaN(date.getTime()) || !exists || year < 1970) throw invalidRequest(`${field}: is not a valid ISO date (such as 2026-05-01 or 2026-05-01T00:00:00Z)`, field)
  return date
}

/** The usage rows of a group: per day or category as counted, per country merged from calling-code prefixes. */
export async function usageRows (usage: Pick<UsageStore, 'counts'>, workspaceId: string, period: { since: Date, until: Date, group: UsageGroup }) {
  const counts = await usage.counts(workspaceId, period.since, period.until, period.group)
  const merged = new Map<string, { billable: number, free: number, unpriced: number, messages: number }>()
  for (const row of counts) {
    const key = period.group === 'country' ? countryOf(row.key) : row.key
    const sum = merged.get(key) ?? { billable: 0, free: 0, unpriced: 0, messages: 0 }
    sum.billable += row.billable
    sum.free += row.free
    sum.unpriced += row.unpriced
    sum.messages += row.messages
    merged.set(key, sum)
  }
  // a message no status webhook has priced yet is neither billable nor free: `unpriced`
  return [...merged].sort(([a], [b]) => a.localeCompare(b))
    .map(([key, sum]) => ({ [period.group]: key, billable: sum.billable, free: sum.free, unpriced: sum.unpriced, messages: sum.messages }))
}
