import type { FastifyBaseLogger } from 'fastify'
import type { MessageRecord, ReadReceipts } from '../../db/schema.js'
import { faultCode } from '../faults/classify.js'
import type { ConversationStore } from '../store/conversations.js'
import { createBatcher } from '../store/batcher.js'
import type { InboundStore, MarkedMessage, StoredInbound } from '../store/inbound.js'
import type { Transaction, WorkRunner } from '../work/runner.js'
import { renewalDue, TYPING_RENEW_MS, TYPING_SHOWS_MS, type ReadMarks } from './read-marks.js'

export const READ_MARK_QUEUE = 'read-marks'
export const TYPING_QUEUE = 'typing-renewals'
// a change of policy holds within 2 s (CONTRACT.md 19): each process reads it at most once a second
const POLICY_CACHE_MS = 1000
// a reply's read mark made this long ago and not landed (its job retrying) may be made again
const REMARK_AFTER_MS = 60_000

type MarkedJson = Omit<MarkedMessage, 'receivedAt'> & { receivedAt: string }
// a reply's job (its mark failed when the reply was sent) carries the message it marks; one queued
// by an earlier release names the person, and its message is looked up when it runs
type ReadMarkJob = { kind: 'receipt', workspaceId: string, inboundId: string } | { kind: 'reply', message: MarkedJson } | { kind: 'reply', workspaceId: string, phoneNumberId: string, person: string }
interface Replied { workspaceId: string, phoneNumberId: string, person: string }
interface TypingJob { workspaceId: string, inboundId: string, startedAt: string, endsAt: string, shownUntil: string }

export interface PolicyDeps {
  work: WorkRunner
  readMarks: ReadMarks
  inbound: Pick<InboundStore, 'find' | 'latestUnread' | 'latestUnreadOf'>
  conversations: Pick<ConversationStore, 'answeredSince' | 'markingOnReceipt' | 'readReceipts'>
  log: FastifyBaseLogger
}

export type ReadPolicy = ReturnType<typeof createReadPolicy>

/**
 * The workspace's `read_receipts` policy and the typing indicator's renewals (CONTRACT.md 19), as
 * tasks of the durable-work runner: `on_receipt` marks each message read as the intake stores it,
 * `on_reply` the person's latest unread one once a message to them is sent, and a typing indicator
 * started `until: reply` is renewed every 20 s until a message goes to the person or its time is up.
 */
export function createReadPolicy (deps: PolicyDeps) {
  const { work, log } = deps
  const policies = new Map<string, { policy: ReadReceipts | undefined, until: number }>()

  async function policyOf (workspaceId: string): Promise<ReadReceipts | undefined> {
    const cached = policies.get(workspaceId)
    if (cached && cached.until > Date.now()) return cached.policy
    const policy = await deps.conversations.readReceipts(workspaceId)
    policies.set(workspaceId, { policy, until: Date.now() + POLICY_CACHE_MS })
    return policy
  }

  work.defineLeased(READ_MARK_QUEUE, { batch: 32, concurrency: 32, maxAttempts: 5, pollMs: 250 }, async function markRead (job) {
    const task = JSON.parse(job.payload.toString('utf8')) as ReadMarkJob
    if ('message' in task) return void await deps.readMarks.mark({ ...task.message, receivedAt: new Date(task.message.receivedAt) }, { typing: false })
    const message = task.kind === 'receipt'
      ? await deps.inbound.find(task.workspaceId, { id: task.inboundId })
      : await deps.inbound.latestUnread(task.workspaceId, task.phoneNumberId, task.person)
    if (message && message.readAt === null) await deps.readMarks.mark(message, { typing: false })
  })

  // The replies of one turn of the event loop, together: one statement finds which of their people
  // have an unread message, and which is the latest. Each is marked at once, by this process (the
  // upstream call, and an update shared with the marks landing beside it); one that fails becomes a
  // job of the runner, retried as any read mark. A message marked here lately is not marked again:
  // the replies that follow the first before its mark lands (a bot's answer in three messages)
  // still find it unread.
  const marked = new Map<string, number>()
  const replied = createBatcher(async (replies: Replied[]) => {
    const people = [...new Map(replies.map(reply => [`${reply.workspaceId}\u0000${reply.phoneNumberId}\u0000${reply.person}`, reply])).values()]
    const now = Date.now()
    for (const [id, at] of marked) if (now - at > REMARK_AFTER_MS) marked.delete(id)
    const unread = (await deps.inbound.latestUnreadOf(people)).filter(message => !marked.has(message.id))
    for (const message of unread) {
      marked.set(message.id, now)
      void markNow(message)
    }
    return replies.map(() => undefined)
  }, { maxBatch: 500 })

  async function markNow (message: MarkedMessage): Promise<void> {
    try {
      await deps.readMarks.mark(message, { typing: false })
    } catch {
      try {
        await work.enqueue([{ queue: READ_MARK_QUEUE, payload: JSON.stringify({ kind: 'reply', message: { ...message, receivedAt: message.receivedAt.toISOString() } } satisfies ReadMarkJob) }])
        work.wake(READ_MARK_QUEUE)
      } catch (error) {
        log.warn({ code: faultCode(error), inboundId: message.id }, 'could not hand over the read mark of a reply')
      }
    }
  }

  // a renewal is worth nothing late: one attempt, its failure logged
  work.defineLeased(TYPING_QUEUE, { batch: 32, concurrency: 32, maxAttempts: 1, pollMs: 1000 }, async function renewTyping (job) {
    const task = JSON.parse(job.payload.toString('utf8')) as TypingJob
    const message = await deps.inbound.find(task.workspaceId, { id: task.inboundId })
    if (!message) return
    const [now, endsAt] = [new Date(), new Date(task.endsAt)]
    if (!renewalDue(now, endsAt, new Date(task.shownUntil))) return
    if (await deps.conversations.answeredSince(message.workspaceId, message.phoneNumberId, message.from ?? message.fromUserId ?? '', new Date(task.startedAt))) return
    try {
      await deps.readMarks.mark(message, { typing: true, now })
    } catch (error) {
      log.warn({ code: faultCode(error), inboundId: message.id }, 'a typing indicator could not be renewed')
      return
    }
    await renewLater({ ...task, shownUntil: new Date(now.getTime() + TYPING_SHOWS_MS).toISOString() }, now)
  })

  async function renewLater (task: TypingJob, from: Date): Promise<void> {
    if (new Date(task.shownUntil).getTime() >= new Date(task.endsAt).getTime()) return
    await work.enqueue([{ queue: TYPING_QUEUE, payload: JSON.stringify(task), runAt: new Date(from.getTime() + TYPING_RENEW_MS) }])
  }

  return {
    /** In the intake's transaction: a read mark for each new message of an `on_receipt` workspace. */
    async received (tx: Transaction, inbound: StoredInbound[]): Promise<void> {
      if (inbound.length === 0) return
      const marking = await deps.conversations.markingOnReceipt(tx, inbound.map(message => message.workspaceId))
      const jobs = inbound.filter(message => marking.has(message.workspaceId))
        .map(message => ({ queue: READ_MARK_QUEUE, payload: JSON.stringify({ kind: 'receipt', workspaceId: message.workspaceId, inboundId: message.id } satisfies ReadMarkJob) }))
      if (jobs.length > 0) await work.enqueue(jobs, tx)
    },

    /** A message went to the person: under `on_reply`, their latest unread message is marked read (nothing when none is). */
    async sent (record: MessageRecord): Promise<void> {
      try {
        if (await policyOf(record.workspaceId) !== 'on_reply') return
        await replied({ workspaceId: record.workspaceId, phoneNumberId: record.phoneNumberId, person: record.recipient })
      } catch (error) {
        log.warn({ code: faultCode(error), messageId: record.id }, 'could not hand over the read mark of a reply')
      }
    },

    /** A typing indicator started with `until: reply`: renewals until `endsAt` or a reply. */
    async typingStarted (message: { id: string, workspaceId: string }, startedAt: Date, endsAt: Date): Promise<void> {
      await renewLater({ workspaceId: message.workspaceId, inboundId: message.id, startedAt: startedAt.toISOString(), endsAt: endsAt.toISOString(), shownUntil: new Date(startedAt.getTime() + TYPING_SHOWS_MS).toISOString() }, startedAt)
    }
  }
}
