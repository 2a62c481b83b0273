import type { AudienceEvent } from '../../audience/effects.js'
import { limitOfNumbers } from '../../audience/tiers.js'
import { liveWithRemaining, markRating, numbersOfWaba, recordQuality, used24h } from '../../store/campaign-guard.js'
import type { TemplateChange } from '../../store/templates.js'
import type { Transaction } from '../../work/runner.js'
import { applyVerdict, type GuardSettings } from './act.js'
import { exceedsLimit, numberEventVerdict, templateVerdict, tierVerdict, type Limit } from './rules.js'

type QualityEvent = Extract<AudienceEvent, { kind: 'quality' }>

/** What the guard reads of a webhook batch, once the batch is applied (src/webhooks/apply.ts, src/audience/effects.ts). */
export interface GuardIntake { audience: AudienceEvent[], templates: TemplateChange[] }

/** The WABAs a batch may change the tier of, with their limit before it is applied (a drop is told by the limit before and after). */
export async function limitsBefore (tx: Transaction, applied: GuardIntake): Promise<Map<string, Limit>> {
  const wabas = [...new Set(applied.audience.flatMap(event => event.kind === 'tier' || event.kind === 'quality' ? [event.wabaId] : []))]
  return await limitsOf(tx, wabas)
}

async function limitsOf (tx: Transaction, wabas: string[]): Promise<Map<string, Limit>> {
  const numbers = await numbersOfWaba(tx, wabas)
  return new Map(wabas.map(waba => [waba, limitOfNumbers(numbers.filter(number => number.wabaId === waba).map(number => number.tier))]))
}

/**
 * The batch's quality signals, in its transaction (CONTRACT.md 21): each number's quality events go
 * to its history; with the guard on, a FLAGGED number, a tier drop its remaining recipients do not
 * fit, a paused, disabled or RED template pause their campaigns, and the opposite signals start
 * their recovery.
 */
export async function guardIntake (tx: Transaction, applied: GuardIntake, before: Map<string, Limit>, settings: GuardSettings): Promise<void> {
  const quality = applied.audience.flatMap(event => event.kind === 'quality' ? [event] : [])
  const numbers = await numbersOfWaba(tx, [...before.keys()])
  const numbersOf = (event: QualityEvent) => {
    const ofWaba = numbers.filter(number => number.wabaId === event.wabaId)
    const named = ofWaba.filter(number => number.digits === event.digits)
    return (named.length > 0 ? named : ofWaba).map(number => number.phoneNumberId)
  }
  await recordQuality(tx, quality.flatMap(event => numbersOf(event).map(phoneNumberId => ({ phoneNumberId, rating: event.rating, event: event.event }))))
  // a flagged number is RED: the node read that follows the webhook (src/connections/refresh.ts) is then no new signal
  await markRating(tx, quality.flatMap(event => event.event === 'FLAGGED' ? numbersOf(event) : []), 'RED')
  if (!settings.on) return

  for (const event of quality) {
    const verdict = numberEventVerdict(event.event)
    if (verdict) await applyVerdict(tx, { numbers: numbersOf(event) }, verdict, settings)
  }
  const after = await limitsOf(tx, [...before.keys()])
  for (const [wabaId, limit] of before) {
    const event = quality.findLast(candidate => candidate.wabaId === wabaId && (candidate.event === 'DOWNGRADE' || candidate.event === 'UPGRADE'))?.event
    const verdict = tierVerdict(event, limit, after.get(wabaId) ?? null)
    if (!verdict) continue
    const onWaba = numbers.filter(number => number.wabaId === wabaId).map(number => number.phoneNumberId)
    const newLimit = after.get(wabaId) ?? null
    // a drop pauses only the campaigns whose recipients not yet sent exceed what the new limit has left
    const used = verdict.act === 'pause' ? await used24h(tx, wabaId) : 0
    const over = verdict.act === 'pause' ? (await liveWithRemaining(tx, onWaba)).filter(campaign => exceedsLimit(campaign.remaining, newLimit, used)).map(campaign => campaign.id) : []
    await applyVerdict(tx, { numbers: onWaba }, verdict, settings, { ids: over })
  }
  for (const template of applied.templates) {
    const verdict = templateVerdict(template.change)
    if (verdict) await applyVerdict(tx, { workspaceId: template.workspaceId, template: template.name, language: template.language }, verdict, settings)
  }
}
