import fp from 'fastify-plugin'
import { serviceUnavailable } from '../src/errors.js'
import { createCampaignLane } from '../src/campaigns/lane.js'
import { faultCode } from '../src/faults/classify.js'
import { untilItLands } from '../src/faults/retry.js'
import { defineNumberDrains, NUMBER_DRAINS } from '../src/messages/queue.js'
import { dispatcherStore } from '../src/store/dispatchers.js'
import type { KeyToTake, MessageRecord, PendingMessage } from '../src/store/messages.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Queued sends (CONTRACT.md 9): hand a message over; this process drains the numbers it holds. */
    /** null when the Idempotency-Key to take is held by another record: nothing was queued */
    sendQueue: {
      handOver (message: PendingMessage, take?: KeyToTake): Promise<MessageRecord | null>
      /** Looks for work now: a campaign created, resumed or due (CONTRACT.md 15) */
      wake (): void
    }
  }
}

// The workspace's queued count is read at most this often; hand-overs in this process are added in between.
const COUNT_TTL_MS = 1000
const POLL_MS = 250
// a confirmation is retried for as long as the database may be away: until it lands no other process sends the record
const CONFIRM_WITHIN_MS = 24 * 60 * 60_000

/** Hand-over (with ASYNC_QUEUE_LIMIT) and the drain of queued sends through app.send, a group mode of the runner. */
export default fp(async function sendQueue (app) {
  const { config } = app
  defineNumberDrains({
    work: app.work,
    queuedSends: app.queuedSends,
    messages: app.messages,
    connections: app.connections,
    send: app.send,
    holds: app.holds,
    worker: app.dispatcherId,
    dispatchers: dispatcherStore(app.database.db, app.outbox),
    leaseMs: config.DISPATCHER_LEASE_MS,
    maxAgeMs: config.QUEUE_MAX_AGE_MS,
    throughputMps: config.THROUGHPUT_MPS,
    pollMs: POLL_MS,
    singleProcess: app.database.kind !== 'postgres',
    // campaign messages: the lane behind queued sends (src/campaigns/lane.ts)
    campaigns: createCampaignLane({ campaigns: app.campaigns })
  })
  const counts = new Map<string, { count: number, readAt: number }>()

  async function queuedCount (workspaceId: string): Promise<{ count: number, readAt: number }> {
    const known = counts.get(workspaceId)
    if (known && Date.now() - known.readAt < COUNT_TTL_MS) return known
    const fresh = { count: await app.queuedSends.countQueued(workspaceId), readAt: Date.now() }
    counts.set(workspaceId, fresh)
    return fresh
  }

  /**
   * The hand-over committed (its reply came): the record may now be sent by any process. Confirmed
   * before the 202, so that a process gone in between answered none and its record is withdrawn
   * (queue.ts). A confirmation that fails is retried in the background: the 202 stays true.
   */
  async function confirm (id: string): Promise<void> {
    try {
      await app.queuedSends.confirm(id, app.dispatcherId)
    } catch (error) {
      app.log.warn({ messageId: id, code: faultCode(error) }, 'could not confirm a queued hand-over; retrying until the database answers')
      untilItLands(async () => { await app.queuedSends.confirm(id, app.dispatcherId) }, CONFIRM_WITHIN_MS)
        .catch(() => { app.log.error({ messageId: id }, 'could not confirm a queued hand-over; it is withdrawn once this process is gone') })
    }
  }

  app.decorate('sendQueue', {
    async handOver (message, take) {
      const known = await queuedCount(message.workspaceId)
      if (known.count >= config.ASYNC_QUEUE_LIMIT) {
        throw serviceUnavailable('queue_full', `The workspace has ${known.count} queued messages, the most it may have (ASYNC_QUEUE_LIMIT); nothing was queued`)
      }
      known.count += 1
      const record = await app.queuedSends.handOver(message, app.dispatcherId, take)
      if (!record) { known.count -= 1; return null }
      await confirm(record.id)
      app.work.wake(NUMBER_DRAINS)
      return record
    },
    wake () { app.work.wake(NUMBER_DRAINS) }
  })
  // started with the runner; stopped after dispatch's preClose has stopped the queued sends' waits (they go back to the queue)
  app.addHook('preClose', async function stopDraining () { await app.work.halt(NUMBER_DRAINS) })
}, { name: 'send-queue', dependencies: ['db', 'work', 'dispatch', 'audience', 'send'] })
