import type { TokenCipher } from '../crypto/token-cipher.js'
import { noActiveConnection, tooOld } from '../errors.js'
import { upstreamFailure } from '../media/deps.js'
import type { Pacer } from '../pacer/types.js'
import { throughputOf } from '../pacer/throughput.js'
import type { ConnectionStore } from '../store/connections.js'
import { createBatcher } from '../store/batcher.js'
import { personOf, type InboundStore, type MarkedMessage } from '../store/inbound.js'
import type { UpstreamClient } from '../upstream/client.js'

/** The upstream takes read marks for messages received within 30 days (upstream-facts.md 8.6). */
export const READ_MARK_MAX_AGE_MS = 30 * 24 * 60 * 60_000
/** How long one typing indicator shows, and how often it is renewed (upstream-facts.md 8.6). */
export const TYPING_SHOWS_MS = 25_000
export const TYPING_RENEW_MS = 20_000

export interface ReadMarkDeps {
  inbound: Pick<InboundStore, 'markRead'>
  connections: Pick<ConnectionStore, 'active'>
  cipher: TokenCipher
  upstream: Pick<UpstreamClient, 'markRead'>
  pacer: Pacer
  throughputMps?: number
  deadlineMs: number
}

export type ReadMarks = ReturnType<typeof createReadMarks>

/**
 * Read receipts and typing indicators (CONTRACT.md 19): `POST /{phone-number-id}/messages` with
 * the message's wamid, through the number's pacing in the live lane (never behind queued or
 * campaign sends), then `read_at` on it and the person's earlier unread messages to that number.
 */
export function createReadMarks (deps: ReadMarkDeps) {
  // the marks that land together are written by one statement (group commit)
  const markRead = createBatcher(async (marks: Array<{ message: MarkedMessage, at: Date }>) => await deps.inbound.markRead(marks), { maxBatch: 200 })

  async function mark (message: MarkedMessage, options: { typing: boolean, now?: Date }): Promise<Date> {
    const now = options.now ?? new Date()
    if (now.getTime() - message.receivedAt.getTime() > READ_MARK_MAX_AGE_MS) throw tooOld()
    const active = await deps.connections.active(message.workspaceId)
    const number = active?.numbers.find(one => one.phoneNumberId === message.phoneNumberId)
    if (!active || !number) throw noActiveConnection()
    const token = deps.cipher.decrypt(active.connection.accessToken)
    // its own pair bucket: a read mark spends none of the person's message budget
    const ticket = { numberId: number.phoneNumberId, recipient: `read:${personOf(message)}`, mps: throughputOf(number.throughputLevel, deps.throughputMps) }
    const permit = await deps.pacer.acquire(ticket, { deadline: Date.now() + deps.deadlineMs, lane: 'live' })
    try {
      await deps.upstream.markRead(number.phoneNumberId, token, message.wamid, options.typing)
    } catch (error) {
      throw upstreamFailure(error, options.typing ? 'typing indicator' : 'read receipt')
    } finally {
      permit.done()
    }
    return await markRead({ message, at: now })
  }

  return { mark }
}

/** When a typing indicator started with `until: reply` stops showing: 25 s after its last renewal, at most (about) `maxSeconds` on. */
export function typingEnds (startedAt: Date, maxSeconds: number | undefined): Date {
  return new Date(startedAt.getTime() + Math.max(TYPING_SHOWS_MS, (maxSeconds ?? 0) * 1000))
}

/** Whether an indicator started at `startedAt`, ending at `endsAt`, needs renewing at `now` to keep showing. */
export function renewalDue (now: Date, endsAt: Date, shownUntil: Date): boolean {
  return shownUntil.getTime() < endsAt.getTime() && now.getTime() < endsAt.getTime()
}
