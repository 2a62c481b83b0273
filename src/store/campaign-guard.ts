import { and, eq, inArray, lte, sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { campaigns, qualityHistory, type CampaignRecord, type PausedReason } from '../../db/schema.js'
import { anyOf } from './any-of.js'
import { requeueOrphans } from './campaigns.js'
import type { Executor } from '../../db/client.js'
import { CACHE_CHANNEL } from './read-cache.js'

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0]

/** The campaigns a signal concerns: those sending from some numbers, those of a template, or some by id. */
export type GuardTarget = { numbers: string[] } | { workspaceId: string, template: string, language: string } | { ids: string[] }

function targetOf (target: GuardTarget): SQL {
  if ('numbers' in target) return target.numbers.length === 0 ? sql`false` : inArray(campaigns.phoneNumberId, target.numbers)
  if ('ids' in target) return target.ids.length === 0 ? sql`false` : inArray(campaigns.id, target.ids)
  return and(eq(campaigns.workspaceId, target.workspaceId), eq(campaigns.template, target.template),
    sql`replace(${campaigns.language}, '-', '_') = replace(${target.language}, '-', '_')`)!
}

const LIVE = sql`${campaigns.status} in ('running', 'waiting_for_limit')`

// a campaign `c`'s recipients not yet sent: not yet made into messages, or queued (held ones included: a hold keeps a record queued)
const REMAINING = sql.raw("(c.accepted - c.materialised + (select count(*) from messages m where m.campaign_id = c.id and m.status = 'queued'))::int as remaining")

/**
 * Running or waiting campaigns of the target → paused for `reason`. The condition on the status
 * decides between processes: each campaign is paused (and its event and audit written) once.
 */
export async function pauseLive (tx: Tx, target: GuardTarget, reason: PausedReason): Promise<CampaignRecord[]> {
  return await tx.update(campaigns).set({ status: 'paused', pausedReason: reason, resumeAfter: null, updatedAt: new Date() })
    .where(and(LIVE, targetOf(target))).returning()
}

/** A new signal of the cause: the target's campaigns paused for it no longer resume at the end of a recovery under way. */
export async function holdRecovery (tx: Tx, target: GuardTarget, reason: PausedReason): Promise<void> {
  await tx.update(campaigns).set({ resumeAfter: null }).where(and(eq(campaigns.status, 'paused'), eq(campaigns.pausedReason, reason), targetOf(target)))
}

/** The cause cleared: the target's campaigns paused for it resume at `at`, unless a recovery already under way ends sooner. */
export async function startRecovery (tx: Tx, target: GuardTarget, reason: PausedReason, at: Date): Promise<void> {
  await tx.update(campaigns).set({ resumeAfter: sql`least(coalesce(${campaigns.resumeAfter}, ${at.toISOString()}::timestamptz), ${at.toISOString()}::timestamptz)` })
    .where(and(eq(campaigns.status, 'paused'), eq(campaigns.pausedReason, reason), targetOf(target)))
}

/** Whether a recovery is over: the sweep's one read when none is (the partial index campaigns_guard_resume). */
export async function recoveryDue (executor: Executor): Promise<boolean> {
  const result = await executor.execute(sql`select exists (select 1 from campaigns where resume_after <= now() and status = 'paused') as due`)
  return rowsOf<{ due: boolean }>(result)[0].due
}

/** Guard pauses whose recovery is over → running (scheduled when not yet due), their withdrawn messages queued again; once each. */
export async function resumeDue (tx: Tx, reasons: readonly PausedReason[]): Promise<CampaignRecord[]> {
  const rows = await tx.update(campaigns)
    .set({ status: sql`case when ${campaigns.sendAt} > now() then 'scheduled' else 'running' end`, pausedReason: null, resumeAfter: null, updatedAt: new Date() })
    .where(and(eq(campaigns.status, 'paused'), inArray(campaigns.pausedReason, [...reasons]), lte(campaigns.resumeAfter, new Date()))).returning()
  for (const row of rows) await requeueOrphans(tx, row)
  return rows
}

/** Campaigns paused for a tier drop that may resume at once: with their WABA and their recipients not yet sent. */
export async function pausedForTier (executor: Executor): Promise<Array<{ id: string, wabaId: string, remaining: number }>> {
  const result = await executor.execute(sql`select c.id, cn.waba_id,
      ${REMAINING}
    from campaigns c
    join phone_numbers p on p.phone_number_id = c.phone_number_id and p.workspace_id = c.workspace_id
    join connections cn on cn.id = p.connection_id and cn.status = 'active'
    where c.status = 'paused' and c.paused_reason = 'tier_downgraded' and (c.resume_after is null or c.resume_after > now())`)
  return rowsOf<{ id: string, waba_id: string, remaining: number }>(result).map(row => ({ id: row.id, wabaId: row.waba_id, remaining: Number(row.remaining) }))
}

/** The live campaigns of these numbers with their recipients not yet sent (queued, held or not yet made into messages). */
export async function liveWithRemaining (executor: Executor, numbers: string[]): Promise<Array<{ id: string, remaining: number }>> {
  if (numbers.length === 0) return []
  const result = await executor.execute(sql`select c.id,
      ${REMAINING}
    from campaigns c where c.status in ('running', 'waiting_for_limit') and c.phone_number_id = ${anyOf(numbers)}`)
  return rowsOf<{ id: string, remaining: number }>(result).map(row => ({ id: row.id, remaining: Number(row.remaining) }))
}

/** The active numbers of a WABA: their ids, display numbers (digits only), tiers and ratings as stored. */
export async function numbersOfWaba (executor: Executor, wabaIds: string[]): Promise<Array<{ wabaId: string, phoneNumberId: string, digits: string, tier: string | null, rating: string | null }>> {
  if (wabaIds.length === 0) return []
  const result = await executor.execute(sql`select c.waba_id, p.phone_number_id, regexp_replace(p.display_phone_number, '[^0-9]', '', 'g') as digits,
      p.messaging_limit_tier, p.quality_rating
    from phone_numbers p join connections c on c.id = p.connection_id and c.status = 'active' where c.waba_id = ${anyOf(wabaIds)}`)
  return rowsOf<{ waba_id: string, phone_number_id: string, digits: string, messaging_limit_tier: string | null, quality_rating: string | null }>(result)
    .map(row => ({ wabaId: row.waba_id, phoneNumberId: row.phone_number_id, digits: row.digits, tier: row.messaging_limit_tier, rating: row.quality_rating }))
}

/** The numbers' stored quality rating, as a webhook said it (FLAGGED: RED); their readers' caches drop them as this commits. */
export async function markRating (executor: Executor, numbers: string[], rating: string): Promise<void> {
  if (numbers.length === 0) return
  await executor.execute(sql`update phone_numbers set quality_rating = ${rating}, updated_at = now() where phone_number_id = ${anyOf(numbers)}`)
  await executor.execute(sql`select pg_notify(${CACHE_CHANNEL}, '')`)
}

/** Recipients counted in the WABA's messaging-limit window now. */
export async function used24h (executor: Executor, wabaId: string): Promise<number> {
  const result = await executor.execute(sql`select count(*)::int as used from messaging_limit_recipients where waba_id = ${wabaId} and last_at > now() - interval '24 hours'`)
  return Number(rowsOf<{ used: number }>(result)[0].used)
}

/**
 * Each live campaign that has a message failed with one of `codes` since its window began: how
 * many of its last `window` finished messages (sent or beyond, or failed; cancelled ones aside)
 * there are, and how many of them failed with one of the codes. Only campaigns with such a failure
 * are read (the index on (campaign_id, status) finds them), so a healthy drain costs one probe.
 */
export async function failureWindows (executor: Executor, codes: string[], window: number): Promise<Array<{ id: string, finished: number, failed: number }>> {
  const result = await executor.execute(sql`select c.id, w.finished, w.failed from campaigns c,
    lateral (select count(*)::int as finished, (count(*) filter (where last.status = 'failed' and last.error_code = ${anyOf(codes)}))::int as failed
      from (select m.status, m.error_code from messages m
        where m.campaign_id = c.id and m.status in ('sent', 'delivered', 'read', 'failed') and m.error_code is distinct from 'cancelled'
          and (c.guard_since is null or coalesce(m.failed_at, m.sent_at, m.updated_at) >= c.guard_since)
        order by coalesce(m.failed_at, m.sent_at, m.updated_at) desc limit ${window}) last) w
    where c.status in ('running', 'waiting_for_limit')
      and exists (select 1 from messages f where f.campaign_id = c.id and f.status = 'failed' and f.error_code = ${anyOf(codes)}
        and (c.guard_since is null or coalesce(f.failed_at, f.updated_at) >= c.guard_since))`)
  return rowsOf<{ id: string, finished: number, failed: number }>(result).map(row => ({ id: row.id, finished: Number(row.finished), failed: Number(row.failed) }))
}

export interface QualitySignal { phoneNumberId: string, rating: string | null, event: string | null }

export async function recordQuality (tx: Pick<Database, 'insert'>, signals: QualitySignal[]): Promise<void> {
  if (signals.length > 0) await tx.insert(qualityHistory).values(signals)
}

/** The numbers' signals since `since`, oldest first; older ones are forgotten. */
export async function qualityHistoryOf (db: Database, numbers: string[], since: Date): Promise<Map<string, Array<{ rating: string | null, event: string | null, at: Date }>>> {
  const history = new Map<string, Array<{ rating: string | null, event: string | null, at: Date }>>(numbers.map(number => [number, []]))
  if (numbers.length === 0) return history
  const rows = await db.select().from(qualityHistory)
    .where(and(inArray(qualityHistory.phoneNumberId, numbers), sql`${qualityHistory.at} >= ${since.toISOString()}::timestamptz`))
    .orderBy(qualityHistory.at, qualityHistory.id)
  for (const row of rows) history.get(row.phoneNumberId)?.push({ rating: row.rating, event: row.event, at: row.at })
  return history
}

/** Signals older than `before` are of no reader's use (the history shows 30 days). */
export async function forgetQuality (executor: Executor, before: Date): Promise<void> {
  await executor.execute(sql`delete from quality_history where at < ${before.toISOString()}::timestamptz`)
}

