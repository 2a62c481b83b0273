import type { FastifyBaseLogger } from 'fastify'
import type { AudienceEvent } from '../audience/effects.js'
import { insertInbound, routeNumbers, type StoredInbound } from '../store/inbound.js'
import { keepAside, type KeptAside } from '../store/kept-aside.js'
import { recordStatuses, type StatusChange } from '../store/status-events.js'
import { applyTemplateEvent, type TemplateChange } from '../store/templates.js'
import { linkUserIds } from '../store/user-ids.js'
import type { Transaction } from '../work/runner.js'
import { emptyParts, type DeliveryParts } from './delivery.js'
import { databaseErrorCode, isTransientDatabaseError } from './database-errors.js'
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
 * a statement still fails on content the checks did not foresee, the savepoint is rolled back and
 * each event is applied alone in its own: the one that fails is kept aside, the others apply.
 */
export async function applyParts (tx: Transaction, parts: DeliveryParts, options: ApplyOptions): Promise<{ applied: AppliedChanges, summary: ApplySummary }> {
  const applied: AppliedChanges = { statusChanges: [], inbound: [], templates: [], audience: parts.audience }
  const summary: ApplySummary = { statuses: 0, repeats: 0, orphans: 0, inbound: 0, templates: 0, keptAside: 0 }
  try {
    await tx.transaction(async savepoint => await applyAll(savepoint, parts, { applied, summary, aside: parts.keptAside, lockRecords: options.lockRecords }))
  } catch (error) {
    if (isTransientDatabaseError(error)) throw error
    options.log.warn({ code: databaseErrorCode(error), statuses: parts.statuses.length, inbound: parts.inbound.length }, 'webhook batch failed as a whole; applying its events one by one')
    for (const single of oneByOne(parts)) {
      try {
        await tx.transaction(async savepoint => await applyAll(savepoint, single.parts, { applied, summary, aside: parts.keptAside, lockRecords: options.lockRecords }))
      } catch (failure) {
        if (isTransientDatabaseError(failure)) throw failure
        parts.keptAside.push({ ...single.aside, reason: `apply_failed_${databaseErrorCode(failure)}` })
      }
    }
  }
  await keepAside(tx, parts.keptAside)
  summary.keptAside = parts.keptAside.length
  return { applied, summary }
}

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
function * oneByOne (parts: DeliveryParts): Generator<{ parts: DeliveryParts, aside: KeptAside }> {
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
