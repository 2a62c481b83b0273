import { setTimeout as sleep } from 'node:timers/promises'
import { AGELESS_HOLDS, type HoldStore } from '../store/holds.js'
import { QueuedSendLeft } from '../dispatch/stop.js'
import { throughputOf, windowFor } from '../pacer/throughput.js'
import type { ConnectionStore } from '../store/connections.js'
import type { DispatcherStore } from '../store/dispatchers.js'
import type { MessageRecord, MessageStore } from '../store/messages.js'
import type { QueuedSendStore } from '../store/queued-sends.js'
import type { SendService } from '../send/service.js'
import type { GroupOutcome } from '../work/groups.js'
import type { Job } from '../work/jobs.js'
import type { WorkRunner } from '../work/runner.js'
import { CAMPAIGN_SENDS, QUEUED_SENDS } from '../work/send-queues.js'

/** The runner's group mode that drains each number's queued sends and campaign messages. */
export const NUMBER_DRAINS = 'number-drains'

/** The campaigns' part of a number's drain (src/campaigns/lane.ts): their messages go in the room ordinary queued sends leave. */
export interface CampaignFeed {
  /** Makes up to `want` more of the number's campaign recipients into queued messages; `live`: some campaign of the number still has work. */
  feed (numberId: string, want: number): Promise<{ live: boolean, made: number }>
}

/** Campaign messages in the drain (src/campaigns/lane.ts makes one): fed, claimed and held by their campaign. */
export interface CampaignDispatch extends CampaignFeed {
  /** the numbers with a campaign to work on */
  liveNumbers (): Promise<string[]>
  /** the record moves to `sending` only while its campaign is dispatching (a pause stops it at its slot) */
  claim (messageId: string, worker: string): Promise<boolean>
  /** the campaign shows `waiting_for_limit` while its messages are held by the messaging limit (CONTRACT.md 15) */
  waitingForLimit (record: MessageRecord, waiting: boolean): Promise<void>
}

// A hand-over not yet confirmed by its live creator is waited for this long, looked at this often (a
// confirmation is one round trip after the commit); longer, its creator is likely withdrawing it.
const CONFIRM_WAIT_MS = 2000
const CONFIRM_POLL_MS = 50

// A campaign message never expires while it waits (CONTRACT.md 15): its pacing deadline is only a bound on one wait.
const CAMPAIGN_WAIT_MS = 24 * 60 * 60_000

export interface QueueDeps {
  work: Pick<WorkRunner, 'defineGroups'>
  queuedSends: QueuedSendStore
  messages: MessageStore
  connections: Pick<ConnectionStore, 'active' | 'activeNumber' | 'numbersOf'>
  /** the send service: the audience rules asked again (a queued send may be held, or refused, before it goes), and the dispatch */
  send: Pick<SendService, 'again' | 'dispatch'>
  holds: Pick<HoldStore, 'hold'>
  /** this process: names the records it sends (the dispatcher id) */
  worker: string
  /** a number's lease and its jobs' (DISPATCHER_LEASE_MS), expiry (QUEUE_MAX_AGE_MS), THROUGHPUT_MPS */
  leaseMs: number
  maxAgeMs: number
  throughputMps?: number
  pollMs: number
  /** whether a process is alive (its dispatcher lease): the creator of a hand-over not yet confirmed */
  dispatchers: Pick<DispatcherStore, 'alive'>
  /** the embedded database: no other process can be draining */
  singleProcess: boolean
  campaigns?: CampaignDispatch
}

/** done: the job is finished; requeue: given back as it was; later: held, to be looked at again then. */
export type SendOutcome = GroupOutcome

/**
 * Drains queued sends (CONTRACT.md 9): a group mode of the runner (src/work/groups.ts), a group per
 * sending number, so each number's queue is drained by one process at a time and the processes
 * share the numbers; in it, a recipient's messages go one at a time in arrival order, campaign
 * messages in the room queued sends leave. Every queued send goes through app.send's dispatch in the
 * queued lane: the same pacer (behind live sends), retries and classification as a live send, with
 * its expiry as deadline. Woken by `work.wake(NUMBER_DRAINS)`.
 */
export function defineNumberDrains (deps: QueueDeps): void {
  const campaignLane = deps.campaigns
  deps.work.defineGroups<MessageRecord>(NUMBER_DRAINS, {
    queue: QUEUED_SENDS,
    behind: campaignLane && { queue: CAMPAIGN_SENDS, feed: async (numberId, want) => await campaignLane.feed(numberId, want), liveGroups: async () => await campaignLane.liveNumbers() },
    leaseMs: deps.leaseMs,
    pollMs: deps.pollMs,
    singleProcess: deps.singleProcess,
    async capacity (numberId) {
      const number = await deps.connections.activeNumber(numberId)
      return drainCapacity(number?.throughputLevel ?? null, deps.throughputMps)
    },
    async read (jobs) {
      const records = new Map((await deps.queuedSends.byIds(jobs.map(job => job.payload.toString('utf8')))).map(record => [record.id, record]))
      return jobs.map(job => records.get(job.payload.toString('utf8')))
    },
    lineOf: (job, record) => record?.recipient ?? `job:${job.id}`
  }, sendOne)

  /** One record, whose job this process leased: sent now, held for later, or finished without a send when that is no longer right. */
  async function sendOne (_job: Job, record: MessageRecord | undefined): Promise<SendOutcome> {
    // Taken over from a process that died, or cancelled: a record that left `queued` is never sent again.
    if (!record || record.status !== 'queued') return 'done'
    if (record.dispatcherId !== null) {
      const confirmed = await untilConfirmed(record)
      if ('outcome' in confirmed) return confirmed.outcome
      record = confirmed.record
    }
    const campaigns = record.campaignId === null ? undefined : deps.campaigns
    const expiresAt = campaigns ? Date.now() + CAMPAIGN_WAIT_MS : expiryOf(record, deps.maxAgeMs)
    if (!campaigns && Date.now() >= expiresAt) {
      await deps.messages.markFailed(record.id, { errorCode: 'expired', errorText: 'Not sent: the message expired in the queue (QUEUE_MAX_AGE_MS)', attempts: 0 })
      return 'done'
    }
    const active = await deps.connections.active(record.workspaceId)
    const number = active?.numbers.find(candidate => candidate.phoneNumberId === record.phoneNumberId)
    if (!active || !number) {
      await deps.messages.markFailed(record.id, { errorCode: 'no_active_connection', errorText: 'Not sent: the sending number is no longer connected', attempts: 0 })
      return 'done'
    }
    let verdict = await deps.send.again(record, active)
    if (verdict.go === 'hold' && verdict.reason === 'messaging_limit') {
      // decided on the tiers as cached (under a second old): a rise that released this send may not
      // have reached the cache yet, so a hold by the limit reads them afresh (holds are rare)
      const numbers = await deps.connections.numbersOf(active.connection.id)
      const tiers = (of: Array<{ messagingLimitTier: string | null }>) => of.map(candidate => candidate.messagingLimitTier).join()
      if (tiers(numbers) !== tiers(active.numbers)) verdict = await deps.send.again(record, { ...active, numbers })
    }
    if (verdict.go === 'refuse') {
      const errorCode = verdict.error.code === 'recipient_opted_out' ? 'opted_out' : verdict.error.code
      await deps.messages.markFailed(record.id, { errorCode, errorText: `Not sent: ${verdict.error.message}`, attempts: 0 })
      return 'done'
    }
    if (verdict.go === 'hold') {
      if (!await deps.holds.hold(record.id, verdict.reason)) return 'done'
      // a hold that ages (a paused template) is looked at again by its expiry at the latest
      const ages = !AGELESS_HOLDS.includes(verdict.reason)
      // a campaign's message waits for the limit unexpired, and its campaign shows waiting_for_limit
      if (campaigns && verdict.reason === 'messaging_limit') await campaigns.waitingForLimit(record, true)
      return { later: new Date(ages ? Math.min(verdict.until.getTime(), expiresAt) : verdict.until.getTime()) }
    }
    if (campaigns) await campaigns.waitingForLimit(record, false)
    // the claim's mark: a claim retried after its reply was lost finds its own (queued-sends.ts)
    let claimedAt: Date | undefined
    try {
      await deps.send.dispatch(record, verdict.reservation, {
        connection: active.connection,
        throughputLevel: number.throughputLevel,
        deadline: expiresAt,
        queued: campaigns
          ? { claim: async () => await campaigns.claim(record.id, deps.worker), lane: 'campaign' }
          : { claim: async () => await deps.queuedSends.markSending(record.id, deps.worker, claimedAt ??= new Date()) }
      })
    } catch (error) {
      if (error instanceof QueuedSendLeft) return error.reason === 'requeue' ? 'requeue' : 'done'
      // otherwise the dispatcher has recorded the failure
    }
    return 'done'
  }

  /**
   * A hand-over its creator has not confirmed (queued-sends.ts): its 202 not yet answered, or its
   * 503 answered and its withdrawal not yet landed. Waited for in the recipient's line (so that
   * what follows it keeps arrival order) while the creator lives, for a moment, then looked at
   * again later; a creator gone without confirming it answered no 202 (it confirms first;
   * docs/decisions/035-queue-withdrawals.md), so it is withdrawn.
   */
  async function untilConfirmed (record: MessageRecord): Promise<{ record: MessageRecord } | { outcome: SendOutcome }> {
    const until = Date.now() + CONFIRM_WAIT_MS
    for (let current: MessageRecord | undefined = record; ; [current] = await deps.queuedSends.byIds([record.id])) {
      if (!current || current.status !== 'queued') return { outcome: 'done' }
      const creator = current.dispatcherId
      if (creator === null) return { record: current }
      if (creator !== deps.worker && (deps.singleProcess || !await deps.dispatchers.alive(creator))) {
        await deps.messages.withdraw(record.id)
        return { outcome: 'done' }
      }
      if (Date.now() >= until) return { outcome: { later: new Date(Date.now() + CONFIRM_WAIT_MS) } }
      await sleep(CONFIRM_POLL_MS)
    }
  }

}

/** When a queued send expires: QUEUE_MAX_AGE_MS after its hand-over, plus the time it spent held for a reason that does not age it. */
export function expiryOf (record: MessageRecord, maxAgeMs: number): number {
  const heldNow = record.heldReason !== null && AGELESS_HOLDS.includes(record.heldReason) && record.heldSince !== null ? Date.now() - record.heldSince.getTime() : 0
  return record.createdAt.getTime() + maxAgeMs + Number(record.heldMs ?? 0) + heldNow
}

/** How many of a number's queued sends this process works on at once: about a second's worth. */
export function drainCapacity (throughputLevel: string | null, overrideMps?: number): number {
  const mps = throughputOf(throughputLevel, overrideMps)
  return Math.max(2 * windowFor(mps).intervalCap, mps)
}
