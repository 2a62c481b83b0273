import { sql } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import { releaseLimitHolds, releaseTemplateHolds } from '../store/holds.js'
import { routeNumbers } from '../store/inbound.js'
import type { Executor } from '../../db/client.js'
import { anyOf } from '../store/any-of.js'
import type { StatusChange } from '../store/status-events.js'
import type { StoredInbound } from '../store/inbound.js'
import type { TemplateChange } from '../store/templates.js'
import { coolDown, suppress, unsuppress } from '../store/suppressions.js'
import { DAY_MS } from '../store/messaging-limit.js'
import { CACHE_CHANNEL } from '../store/read-cache.js'

/** Audience events of a webhook delivery (upstream-facts.md 4.8, 4.9), read by src/webhooks/delivery.ts. */
export type AudienceEvent =
  | { kind: 'preference', phoneNumberId: string, recipient: string, value: 'stop' | 'resume' }
  | { kind: 'tier', wabaId: string, tier: string }
  /** a phone_number_quality_update's event (FLAGGED, UNFLAGGED, DOWNGRADE, UPGRADE…), for the quality guard (CONTRACT.md 21) */
  | { kind: 'quality', wabaId: string, digits: string | null, event: string, rating: string | null }

/** What an upstream error code says about a recipient or a template (CONTRACT.md 14). */
export interface Refusal { workspaceId: string, recipient: string, errorCode: string, payload: unknown }

const TEMPLATE_MARK: Record<string, string> = { 132015: 'PAUSED', 132016: 'DISABLED' }
export const AUDIENCE_CODES = new Set(['131050', '131049', '132015', '132016'])

/**
 * 131050: the recipient opted out (suppressed); 131049: the per-user marketing cap (a 24 h
 * cooldown); 132015/132016: the template is paused or disabled (marked so in the catalog).
 */
export async function applyRefusals (tx: Executor, refusals: Refusal[]): Promise<void> {
  const relevant = refusals.filter(refusal => AUDIENCE_CODES.has(refusal.errorCode))
  await suppress(tx, relevant.filter(refusal => refusal.errorCode === '131050').map(refusal => ({ workspaceId: refusal.workspaceId, recipient: refusal.recipient, reason: 'opt_out_131050' as const })))
  await coolDown(tx, relevant.filter(refusal => refusal.errorCode === '131049').map(refusal => ({ workspaceId: refusal.workspaceId, recipient: refusal.recipient, until: new Date(Date.now() + DAY_MS) })))
  for (const refusal of relevant) {
    const status = TEMPLATE_MARK[refusal.errorCode]
    const template = (refusal.payload as { template?: { name?: unknown, language?: { code?: unknown } } } | null)?.template
    if (!status || typeof template?.name !== 'string' || typeof template.language?.code !== 'string') continue
    await tx.execute(sql`update templates set status = ${status}, updated_at = now()
      where workspace_id = ${refusal.workspaceId} and name = ${template.name} and language = ${template.language.code}`)
  }
}

export interface AudienceIntake {
  statusChanges: StatusChange[]
  inbound: StoredInbound[]
  templates: TemplateChange[]
  audience: AudienceEvent[]
}

/**
 * What the webhook intake's batch means for the audience rules, in its transaction: refusals in
 * `failed` statuses, `user_preferences` stop/resume, opt-out keywords in inbound texts, tier
 * changes, and templates approved again (their held sends are released).
 */
export async function applyAudienceIntake (tx: Executor, applied: AudienceIntake, options: { optOutKeywords: ReadonlySet<string> }): Promise<void> {
  const refused = applied.statusChanges.filter(change => change.status === 'failed' && change.errorCode !== null && AUDIENCE_CODES.has(change.errorCode))
  if (refused.length > 0) {
    const rows = rowsOf<{ id: string, workspace_id: string, recipient: string, payload: unknown }>(await tx.execute(sql`select id, workspace_id, recipient, payload from messages where id = ${anyOf(refused.map(change => change.messageId))}`))
    const codeOf = new Map(refused.map(change => [change.messageId, change.errorCode ?? '']))
    await applyRefusals(tx, rows.map(row => ({ workspaceId: row.workspace_id, recipient: row.recipient, errorCode: codeOf.get(row.id) ?? '', payload: row.payload })))
  }
  await applyPreferences(tx, applied.audience.flatMap(event => event.kind === 'preference' ? [event] : []))
  if (options.optOutKeywords.size > 0) {
    // the sender as every name we know it by: a phone number, a business-scoped user id, or both (CONTRACT.md 16)
    await suppress(tx, applied.inbound.flatMap(message => isOptOut(message.payload, options.optOutKeywords)
      ? [...new Set([message.from, message.fromUserId])].flatMap(recipient => recipient ? [{ workspaceId: message.workspaceId, recipient, reason: 'keyword' as const }] : [])
      : []))
  }
  for (const event of applied.audience) {
    if (event.kind !== 'tier') continue
    // the portfolio's numbers share one limit: every number of the WABA gets the tier
    await tx.execute(sql`update phone_numbers set messaging_limit_tier = ${event.tier}, updated_at = now()
      where connection_id in (select id from connections where waba_id = ${event.wabaId} and status = 'active')`)
    // the numbers are cached (src/store/read-cache.ts): every process drops them as this commits, so
    // that the held sends released here are decided again with the new tier, not the one cached
    await tx.execute(sql`select pg_notify(${CACHE_CHANNEL}, '')`)
    // a higher tier frees slots: what the limit holds goes now, not at the next slot's 24 h end (a lower one re-holds them)
    await releaseLimitHolds(tx, event.wabaId)
  }
  for (const template of applied.templates) {
    if (template.status === 'APPROVED') await releaseTemplateHolds(tx, template.workspaceId, template.name, template.language)
  }
}

async function applyPreferences (tx: Executor, events: Array<Extract<AudienceEvent, { kind: 'preference' }>>): Promise<void> {
  if (events.length === 0) return
  const routes = await routeNumbers(tx, [...new Set(events.map(event => event.phoneNumberId))])
  // in arrival order: a stop then a resume in one batch ends resumed
  for (const event of events) {
    const workspaceId = routes.get(event.phoneNumberId)
    if (!workspaceId) continue
    if (event.value === 'stop') await suppress(tx, [{ workspaceId, recipient: event.recipient, reason: 'user_preferences' }])
    else await unsuppress(tx, [{ workspaceId, recipient: event.recipient }])
  }
}

/** An inbound text that is exactly one of the keywords, trimmed and in any case. */
function isOptOut (payload: unknown, keywords: ReadonlySet<string>): boolean {
  const body = (payload as { type?: unknown, text?: { body?: unknown } } | null)?.text?.body
  return typeof body === 'string' && body.length <= 64 && keywords.has(body.trim().toUpperCase())
}

/** OPT_OUT_KEYWORDS as the set the intake matches against. */
export function optOutKeywords (setting: string): ReadonlySet<string> {
  return new Set(setting.split(',').map(word => word.trim().toUpperCase()).filter(word => word.length > 0))
}
