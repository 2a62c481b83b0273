import type { Database } from '../../../db/client.js'
import { limitOfNumbers } from '../../audience/tiers.js'
import { failureWindows, forgetQuality, numbersOfWaba, pausedForTier, recordQuality, recoveryDue, resumeDue, startRecovery, used24h } from '../../store/campaign-guard.js'
import { DAY_MS } from '../../store/messaging-limit.js'
import { announce, applyVerdict, type GuardSettings } from './act.js'
import { exceedsLimit, failureRateExceeded, ratingVerdict, SELF_CLEARING } from './rules.js'

/** How long the quality history is kept: GET /api/limits.php shows 30 days. */
export const HISTORY_DAYS = 30

/**
 * One pass of the guard's sweep, run every second by each process (the conditional updates decide
 * which process acts): campaigns paused for a tier drop whose remaining recipients now fit resume
 * at once; recoveries that are over resume their campaigns; live campaigns whose last finished
 * messages failed too often pause. What it did, to wake the outbox and the drain.
 */
export async function sweep (db: Database, settings: GuardSettings): Promise<{ paused: number, resumed: number }> {
  const fitting = await tierFits(db)
  if (fitting.length > 0) await db.transaction(async tx => await startRecovery(tx, { ids: fitting }, 'tier_downgraded', new Date()))
  const resumed = !await recoveryDue(db) ? 0 : await db.transaction(async tx => {
    const rows = await resumeDue(tx, SELF_CLEARING)
    await announce(tx, rows, 'campaign.resumed')
    return rows.length
  })
  const over = (await failureWindows(db, settings.codes, settings.window)).filter(last => failureRateExceeded(last, settings)).map(last => last.id)
  const paused = over.length === 0 ? 0 : await db.transaction(async tx => await applyVerdict(tx, { ids: over }, { act: 'pause', reason: 'failure_rate' }, settings))
  return { paused, resumed }
}

/** Campaigns paused for a tier drop whose recipients not yet sent fit what the limit has left now. */
async function tierFits (db: Database): Promise<string[]> {
  const paused = await pausedForTier(db)
  if (paused.length === 0) return []
  const wabas = [...new Set(paused.map(campaign => campaign.wabaId))]
  const numbers = await numbersOfWaba(db, wabas)
  const fits: string[] = []
  for (const wabaId of wabas) {
    const limit = limitOfNumbers(numbers.filter(number => number.wabaId === wabaId).map(number => number.tier))
    const used = await used24h(db, wabaId)
    fits.push(...paused.filter(campaign => campaign.wabaId === wabaId && !exceedsLimit(campaign.remaining, limit, used)).map(campaign => campaign.id))
  }
  return fits
}

/** A read of numbers' nodes (hourly, or after a quality webhook): each rating goes to the history, and a move to or from RED is a signal. */
export async function numbersRead (db: Database, reads: Array<{ phoneNumberId: string, before: string | null, after: string | null }>, settings: GuardSettings): Promise<number> {
  return await db.transaction(async tx => {
    await recordQuality(tx, reads.map(read => ({ phoneNumberId: read.phoneNumberId, rating: read.after, event: null })))
    await forgetQuality(tx, new Date(Date.now() - HISTORY_DAYS * DAY_MS))
    if (!settings.on) return 0
    let paused = 0
    for (const read of reads) {
      const verdict = ratingVerdict(read.before, read.after)
      if (verdict) paused += await applyVerdict(tx, { numbers: [read.phoneNumberId] }, verdict, settings)
    }
    return paused
  })
}
