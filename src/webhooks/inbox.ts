import type { FastifyBaseLogger } from 'fastify'
import { faultCode } from '../faults/classify.js'
import { createBatcher } from '../store/batcher.js'
import type { KeptAside } from '../store/kept-aside.js'
import type { Transaction, WorkRunner } from '../work/runner.js'
import { applyParts, type AppliedChanges } from './apply.js'
import { emptyParts, readDelivery, type ReceivedDelivery } from './delivery.js'

export const INBOX_QUEUE = 'webhook-inbox'

/**
 * Called inside the batch's transaction with what it changed, so that what follows from a change
 * (a customer event in an outbox) commits with it or not at all. A throw rolls the batch back.
 */
export type OnApplied = (tx: Transaction, applied: AppliedChanges, received: ReceivedDelivery[]) => Promise<void>

export interface InboxDeps {
  work: WorkRunner
  log: FastifyBaseLogger
  /** the WABA's numbers may have changed quality, throughput or tier: re-read them (in the background) */
  refreshNumbers(wabaId: string): void
  onApplied?: OnApplied
  /** after a batch's transaction committed (what onApplied created can be worked on now) */
  committed?(): void
  /** several processes may apply the inbox at once (PostgreSQL) */
  shared: boolean
}

export interface Inbox {
  /** Stores a verified delivery's raw bytes, group-committed with the concurrent ones; resolves once they are durable. */
  store(raw: Buffer): Promise<number>
  /** Applies what is stored now rather than after a restart (a stopping process); gives up after timeoutMs. */
  drain(timeoutMs: number): Promise<void>
}

// Bigger batches amortise the transaction; at 256 one batch stays within tens of ms (bench/RESULTS.md).
const BATCH = 256
// Effects visible within 2 s (CONTRACT.md 3): an enqueue in this process wakes the worker at once, the poll
// (every 100 ms, backing off to 1 s while idle) covers the others.
const POLL_MS = 100
const GATHER_MS = 50
// PostgreSQL: inserts on several connections share the wait for the WAL flush (its own group commit)
const SHARED_WRITES = 4
// With the default backoff (doubling to 5 min) about four hours of retries before a delivery becomes a dead letter.
const MAX_ATTEMPTS = 50

/**
 * The durable webhook inbox (CONTRACT.md 3): the route stores each signed delivery as one job and
 * answers 200; batches of jobs are applied in arrival order, set-based, in one transaction with
 * their completion, so a crash applies a delivery once or not at all and several processes share
 * the queue (src/work/runner.ts).
 */
export function createInbox (deps: InboxDeps): Inbox {
  const { work, log } = deps
  // One wake per gathering window rather than one per insert: under load a batch then carries
  // what arrived during the window instead of the few deliveries of one insert.
  let waking: NodeJS.Timeout | undefined
  const store = createBatcher<Buffer, number>(async raws => {
    const ids = await work.enqueue(raws.map(payload => ({ queue: INBOX_QUEUE, payload })))
    waking ??= setTimeout(() => { waking = undefined; work.wake(INBOX_QUEUE) }, GATHER_MS).unref()
    return ids
  }, { maxBatch: BATCH, concurrency: deps.shared ? SHARED_WRITES : 1 })

  work.defineBatch(INBOX_QUEUE, { batch: BATCH, pollMs: POLL_MS, maxAttempts: MAX_ATTEMPTS, committed: deps.committed }, async function applyDeliveries (jobs, tx) {
    const parts = emptyParts()
    for (const job of jobs) readDelivery(parts, job.id, job.payload, job.createdAt)
    try {
      const { applied, summary } = await applyParts(tx, parts, { log, lockRecords: deps.shared })
      await deps.onApplied?.(tx, applied, parts.received)
      for (const part of parts.keptAside) logKeptAside(log, part)
      log.debug({ jobIds: jobs.map(job => job.id), ...summary }, 'webhook deliveries applied')
    } catch (error) {
      throw new ApplyError(error)
    }
    for (const wabaId of parts.refreshWabas) deps.refreshNumbers(wabaId)
  })
  return {
    store,
    async drain (timeoutMs) {
      await work.drained(INBOX_QUEUE, timeoutMs)
    }
  }
}

/** What a failed batch leaves as its job's last error and in the log: its fault's code, never a message (drizzle's carries the parameters). */
class ApplyError extends Error {
  readonly code: string
  constructor (cause: unknown) {
    const code = faultCode(cause)
    super(`applying webhook deliveries failed (${code})`)
    this.code = code
  }
}

// Paths name fields (statuses[0].timestamp); anything else in one would be content.
const SAFE_PATH = /^[\w.[\]]{1,200}$/

function logKeptAside (log: FastifyBaseLogger, part: KeptAside): void {
  const line = { jobId: part.jobId, kind: part.kind, reason: part.reason, field: part.field && SAFE_PATH.test(part.field) ? part.field : undefined, routeId: part.routeId, codes: part.codes }
  if (part.kind === 'upstream_errors') log.warn(line, 'the upstream reported errors in a webhook')
  else log.warn(line, 'webhook event kept aside')
}
