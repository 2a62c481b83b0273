/** Meta's tier names and their limits of unique recipients per 24 h (upstream-facts.md 3.3); null: no limit. */
const LIMIT_OF_TIER: Record<string, number | null> = {
  TIER_50: 50, TIER_250: 250, TIER_1K: 1000, TIER_2K: 2000, TIER_10K: 10_000, TIER_100K: 100_000, TIER_UNLIMITED: null
}
const TIER_OF_LIMIT = new Map(Object.entries(LIMIT_OF_TIER).map(([tier, limit]) => [limit, tier]))

/** What a tier is worth: `TIER_NOT_SET`, absent or unknown → 250 (a new portfolio's); `-1` or `TIER_UNLIMITED` → null. */
export function limitOfTier (tier: string | null | undefined): number | null {
  if (tier === null || tier === undefined) return 250
  if (tier in LIMIT_OF_TIER) return LIMIT_OF_TIER[tier]
  if (/^-1$/.test(tier)) return null
  if (/^\d{1,9}$/.test(tier)) return Number(tier)
  return 250
}

/** A webhook's `max_daily_conversations_per_business` (a tier name, or a number such as 2000 or -1) as the tier we store. */
export function tierOfWebhookValue (value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value === -1 ? 'TIER_UNLIMITED' : TIER_OF_LIMIT.get(value) ?? (value > 0 ? String(value) : undefined)
  if (typeof value === 'string' && /^(TIER_[A-Z0-9_]{1,20}|-1|\d{1,9})$/.test(value)) return value === '-1' ? 'TIER_UNLIMITED' : TIER_OF_LIMIT.get(Number(value)) ?? value
  return undefined
}

/** The WABA's limit from its numbers' tiers: one shared limit, the highest any of them reports. */
export function limitOfNumbers (tiers: Array<string | null>): number | null {
  let best: number | null = 0
  for (const tier of tiers.length > 0 ? tiers : [null]) {
    const limit = limitOfTier(tier)
    if (limit === null) return null
    best = Math.max(best, limit)
  }
  return best
}
