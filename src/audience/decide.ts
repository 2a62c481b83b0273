import type { HoldReason } from '../../db/schema.js'
import { messagingLimitReached, recipientCoolingDown, recipientOptedOut, templateNotApproved, type AppError } from '../errors.js'
import type { ComposedMessage } from '../messages/compose.js'
import type { ActiveConnection } from '../store/connections.js'
import type { MessageRecord } from '../store/messages.js'
import { DAY_MS, type MessagingLimitStore, type Slot, type SlotClaim } from '../store/messaging-limit.js'
import type { ServiceWindowStore } from '../store/service-window.js'
import type { SuppressionStore } from '../store/suppressions.js'
import type { TemplateStore } from '../store/templates.js'
import { isUserId } from '../resources/recipient.js'
import { limitOfNumbers } from './tiers.js'

/**
 * "May this message go now?" (CONTRACT.md 14), one answer for every path that sends:
 * - send: go ahead (at the `send` stage a messaging-limit slot has been taken for it; `slot` when
 *   it was taken anew, to give back if the send never goes out; at the `record` stage, `claim`: the
 *   slot to take in the statement that writes the log record, which may still refuse it);
 * - hold: not now; a queued send waits with `reason` until `until` (or the event that clears it),
 *   a synchronous send answers `error` instead;
 * - refuse: never; answer `error` (a queued send ends failed with its code).
 */
export type Verdict =
  | { go: 'send', slot?: Slot, claim?: SlotClaim }
  | { go: 'hold', reason: HoldReason, until: Date, error: AppError }
  | { go: 'refuse', error: AppError }

/** The message to judge, as a request or a stored record has it. */
export interface SendToDecide {
  workspaceId: string
  /** the sending number's connection: the WABA whose messaging limit it spends, its numbers' tiers */
  active: ActiveConnection
  phoneNumberId: string
  recipient: string
  type: string
  /** type template: the name and language code it goes with */
  template?: { name: string, language: string }
}

/**
 * `hand-over`: a queued send being accepted (202): only what refuses it is decided, no slot is
 * taken, a hold is the record's first state. `send`: it is about to go upstream now. `record`: a
 * send whose log record is about to be written, then the send made: its slot is claimed for that
 * write (a phone number's: one statement and one commit for both; a user id's is taken now).
 */
export type Stage = 'hand-over' | 'send' | 'record'

export interface DecideDeps {
  templates: Pick<TemplateStore, 'byName'>
  suppressions: Pick<SuppressionStore, 'blocked'>
  messagingLimit: Pick<MessagingLimitStore, 'take'>
  serviceWindow: Pick<ServiceWindowStore, 'wroteSinceQuery'>
  /** MESSAGING_LIMIT_CHECK */
  messagingLimitCheck: boolean
}

export type Decide = (send: SendToDecide, stage: Stage) => Promise<Verdict>

// A paused template is looked at again this often, besides being released when it is approved.
export const TEMPLATE_PAUSED_RECHECK_MS = 60_000
const GO: Verdict = { go: 'send' }

export function createDecide (deps: DecideDeps): Decide {
  return async function decide (send, stage) {
    // free-form messages go inside a service window only (the upstream and CONTRACT.md 11 see to
    // that): no messaging limit, and opt-outs concern marketing templates alone
    if (send.type !== 'template' || !send.template) return GO
    const { name, language } = send.template
    const synced = (await deps.templates.byName(send.workspaceId, name)).find(template => template.language === language)
    if (synced && synced.status !== 'APPROVED') {
      const error = templateNotApproved(name, language, synced.status)
      if (synced.status !== 'PAUSED') return { go: 'refuse', error }
      return { go: 'hold', reason: 'template_paused', until: new Date(Date.now() + TEMPLATE_PAUSED_RECHECK_MS), error }
    }
    if (synced?.category?.toUpperCase() === 'MARKETING') {
      const blocked = await deps.suppressions.blocked(send.workspaceId, send.recipient)
      // the error names the field the request used: a user id came as `recipient`, a number as `to`
      const field = isUserId(send.recipient) ? 'recipient' : 'to'
      if (blocked.suppressed) return { go: 'refuse', error: recipientOptedOut(field) }
      if (blocked.coolingDownUntil) return { go: 'hold', reason: 'cooldown', until: blocked.coolingDownUntil, error: recipientCoolingDown(blocked.coolingDownUntil, field) }
    }
    if (stage === 'hand-over' || !deps.messagingLimitCheck) return GO
    // a user id's service window spans its earlier ids: asked on its own (takeSlot), not in the insert
    if (stage === 'record' && !isUserId(send.recipient)) return { go: 'send', claim: claimOf(send) }
    return await takeSlot(send)
  }

  function claimOf (send: SendToDecide): SlotClaim {
    return { wabaId: send.active.connection.wabaId, limit: limitOfNumbers(send.active.numbers.map(number => number.messagingLimitTier)), windowSince: new Date(Date.now() - DAY_MS) }
  }

  /**
   * Counts the recipient against the WABA's limit unless they wrote in the last 24 h (a reply in
   * their window is free): both asked in one statement, the send path's one round trip for the limit.
   */
  async function takeSlot (send: SendToDecide): Promise<Verdict> {
    const free = deps.serviceWindow.wroteSinceQuery(send.workspaceId, send.phoneNumberId, send.recipient, new Date(Date.now() - DAY_MS))
    const limit = limitOfNumbers(send.active.numbers.map(number => number.messagingLimitTier))
    const slot = await deps.messagingLimit.take(send.active.connection.wabaId, send.recipient, limit, free)
    if (slot.taken) return slot.slot ? { go: 'send', slot: slot.slot } : GO
    const retryAfter = Math.max(1, Math.ceil((slot.nextSlotAt.getTime() - Date.now()) / 1000))
    return { go: 'hold', reason: 'messaging_limit', until: slot.nextSlotAt, error: messagingLimitReached(limit ?? 0, retryAfter) }
  }
}

/** The message a stored record carries, to judge before it is dispatched (the queue's drain, a campaign's). */
export function sendOfRecord (record: MessageRecord, active: ActiveConnection): SendToDecide {
  const template = (record.payload as { template?: { name?: unknown, language?: { code?: unknown } } }).template
  return {
    workspaceId: record.workspaceId,
    active,
    phoneNumberId: record.phoneNumberId,
    recipient: record.recipient,
    type: record.type,
    ...(typeof template?.name === 'string' && typeof template.language?.code === 'string' && { template: { name: template.name, language: template.language.code } })
  }
}

/** A message composed from a request, to judge before its log record is written. */
export function sendOfMessage (message: ComposedMessage, workspaceId: string, active: ActiveConnection, phoneNumberId: string): SendToDecide {
  const language = (message.content.language as { code?: unknown } | undefined)?.code
  return {
    workspaceId,
    active,
    phoneNumberId,
    recipient: message.recipient,
    type: message.type,
    ...(message.type === 'template' && typeof language === 'string' && { template: { name: String(message.content.name), language } })
  }
}

/** The answer to a claim the log record's write refused (SlotRefused): as takeSlot's hold at the `send` stage. */
export function claimRefused (claim: SlotClaim, nextSlotAt: Date): AppError {
  const retryAfter = Math.max(1, Math.ceil((nextSlotAt.getTime() - Date.now()) / 1000))
  return messagingLimitReached(claim.limit ?? 0, retryAfter)
}
