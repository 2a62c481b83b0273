import { TransactionRollbackError } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import type { AudienceEvent } from '../audience/effects.js'
import { faultCode, isContentFault } from '../faults/classify.js'
import { insertInbound, routeNumbers, type StoredInbound } from '../store/inbound.js'
import { keepAside, type KeptAside } from '../store/kept-aside.js'
import { recordStatuses, type StatusChange } from '../store/status-events.js'
import { applyTemplateEvent, type TemplateChange } from '../store/templates.js'
import { linkUserIds } from '../store/user-ids.js'
import type { Transaction } from '../work/runner.js'
import { emptyParts, type DeliveryParts } from './delivery.js'
import { userIdChanges } from './user-id-changes.js'

/** What a batch changed, known inside its transaction: what customer webhooks announce (see OnApplied). */
export interface AppliedChanges {
  statusChanges: StatusChange[]
  inbound: StoredInbound[]
  templates: TemplateChange[]
  /** opt-out preferences and tiers, applied by the audience rules (src/audience/effects.ts) in onApplied */
  audience: AudienceEvent[]
}

export interface ApplyOptions {
  log: FastifyBaseLogger
  /** lock the records a batch names first: needed when several processes apply (PostgreSQL) */
  lockRecords: boolean
}

export interface ApplySummary { statuses: number, repeats: number, orphans: number, inbound: number, templates: number, keptAside: number }

/**
 * Applies a batch's parts set-based (a few statements for the whole batch) inside a savepoint. If
 * a statement still fails on content the checks did not foresee (isContentFault), each event is tried
 * alone in a savepoint that is always rolled back: the ones that fail are kept aside, and the others are
 * applied together, as a batch is. Events applied one by one and kept would hold the usage counts
 * of the first (migration 0017) while locking the next one's record, the reverse of a send's
 * outcome (its records, then the counts): PostgreSQL ended one of the two as a deadlock. Any other
 * failure (a blink, an unknown error) is no event's doing: it fails the batch, for the runner to retry.
 */
export async function applyParts (tx: Transaction, parts: DeliveryParts, options: ApplyOptions): Promise<{ applied: AppliedChanges, summary: ApplySummary }> {
  const into: Into = { applied: emptyApplied(parts.audience), summary: emptySummary(), aside: parts.keptAside, lockRecords: options.lockRecords }
  try {
    await tx.transaction(async savepoint => await applyAll(savepoint, parts, into))
  } catch (error) {
    if (!isContentFault(error)) throw error
    options.log.warn({ code: faultCode(error), statuses: parts.statuses.length, inbound: parts.inbound.length }, 'webhook batch failed as a whole; trying its events one by one')
    const passing: Single[] = []
    for (const single of oneByOne(parts)) {
      const code = await failureAlone(tx, single.parts, options.lockRecords)
      if (code === undefined) passing.push(single)
      else parts.keptAside.push({ ...single.aside, reason: `apply_failed_${code}` })
    }
    await applyPassing(tx, passing, into)
  }
  await keepAside(tx, parts.keptAside)
  into.summary.keptAside = parts.keptAside.length
  return { applied: into.applied, summary: into.summary }
}

interface Single { parts: DeliveryParts, aside: KeptAside }

/** The SQLSTATE an event fails with when applied alone, or undefined; what it did is rolled back, its locks with it. */
async function failureAlone (tx: Transaction, parts: DeliveryParts, lockRecords: boolean): Promise<string | undefined> {
  const scratch: Into = { applied: emptyApplied([]), summary: emptySummary(), aside: [], lockRecords }
  try {
    await tx.transaction(async savepoint => {
      await applyAll(savepoint, parts, scratch)
      savepoint.rollback()
    })
  } catch (error) {
    if (error instanceof TransactionRollbackError) return undefined
    if (!isContentFault(error)) throw error
    return faultCode(error)
  }
}

/** The events that apply alone, together; should they still fail together (not seen), each alone, kept as it goes. */
async function applyPassing (tx: Transaction, passing: Single[], into: Into): Promise<void> {
  const together = { ...emptyParts(), statuses: passing.flatMap(single => single.parts.statuses), inbound: passing.flatMap(single => single.parts.inbound), templates: passing.flatMap(single => single.parts.templates) }
  try {
    await tx.transaction(async savepoint => await applyAll(savepoint, together, into))
    return
  } catch (error) {
    if (!isContentFault(error)) throw error
  }
  for (const single of passing) {
    try {
      await tx.transaction(async savepoint => await applyAll(savepoint, single.parts, into))
    } catch (failure) {
      if (!isContentFault(failure)) throw failure
      into.aside.push({ ...single.aside, reason: `apply_failed_${faultCode(failure)}` })
    }
  }
}

const emptyApplied = (audience: AudienceEvent[]): AppliedChanges => ({ statusChanges: [], inbound: [], templates: [], audience })
const emptySummary = (): ApplySummary => ({ statuses: 0, repeats: 0, orphans: 0, inbound: 0, templates: 0, keptAside: 0 })

interface Into { applied: AppliedChanges, summary: ApplySummary, aside: KeptAside[], lockRecords: boolean }

/** Applies the parts and adds what they changed to `into`, once every statement has succeeded. */
async function applyAll (tx: Transaction, parts: DeliveryParts, into: Into): Promise<void> {
  const { applied, summary } = into
  const statuses = await recordStatuses(tx, parts.statuses, { lockRecords: into.lockRecords })
  const routes = await routeNumbers(tx, [...new Set(parts.inbound.map(message => message.phoneNumberId))])
  const routed = parts.inbound.flatMap(message => {
    const workspaceId = routes.get(message.phoneNumberId)
    return workspaceId ? [{ ...message, workspaceId }] : []
  })
  const inbound = await insertInbound(tx, routed)
  // a user id replaced by another (CONTRACT.md 16), linked with the message that says so; a repeat links nothing again
  await linkUserIds(tx, userIdChanges(inbound))
  const templates = []
  for (const event of parts.templates) templates.push(...await applyTemplateEvent(tx, event))

  applied.statusChanges.push(...statuses.changes)
  applied.inbound.push(...inbound)
  applied.templates.push(...templates)
  summary.statuses += statuses.kept
  summary.repeats += parts.statuses.length - statuses.kept
  summary.orphans += statuses.orphans
  summary.inbound += inbound.length
  summary.templates += templates.length
  // a message for a number no workspace has connected is kept, not dropped
  for (const message of parts.inbound) {
    if (!routes.has(message.phoneNumberId)) into.aside.push({ jobId: message.jobId, kind: 'unrouted', reason: 'number_not_connected', routeId: message.phoneNumberId, event: message.payload })
  }
}

/** Each event of the batch as a batch of its own, with what to keep aside should it fail alone. */
function * oneByOne (parts: DeliveryParts): Generator<Single> {
  for (const status of parts.statuses) {
    yield { parts: { ...emptyParts(), statuses: [status] }, aside: { jobId: status.jobId, kind: 'rejected', reason: '', routeId: status.phoneNumberId, event: status.payload } }
  }
  for (const message of parts.inbound) {
    yield { parts: { ...emptyParts(), inbound: [message] }, aside: { jobId: message.jobId, kind: 'rejected', reason: '', routeId: message.phoneNumberId, event: message.payload } }
  }
  for (const template of parts.templates) {
    yield { parts: { ...emptyParts(), templates: [template] }, aside: { jobId: template.jobId, kind: 'rejected', reason: '', routeId: template.wabaId, event: template } }
  }
}
