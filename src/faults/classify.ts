import { UpstreamError } from '../upstream/errors.js'
import { causes, type ErrorLike } from './causes.js'
import { databaseFaultOf } from './database.js'

/** Which dependency failed. */
export type Dependency = 'database' | 'redis' | 'upstream' | 'media_store'

/**
 * A dependency's failure, classified once (CONTRACT.md 12): `later` when the dependency may answer
 * differently soon (a lost connection, a timeout, an overloaded or restarting server: nothing about
 * the work itself is wrong), `final` when it answered and the answer stands (a constraint the row
 * breaks, a permanent upstream refusal). `code` names it for logs and records: a SQLSTATE, a driver's
 * connection code, or ours; never a message, which can carry a statement's parameters.
 */
export interface Fault {
  dependency: Dependency
  retry: 'later' | 'final'
  code: string
  /** final because of the content of the work (SQLSTATE 22, 23, 54): other work may pass where this fails */
  content: boolean
}

// ioredis, with enableOfflineQueue off: what a command gets while the connection is down or lost,
// its messages exactly (a task's own error text, such as a customer endpoint's, never matches one).
const REDIS_DOWN = /^(Stream isn't writeable and enableOfflineQueue options is false|Connection is closed\.|Command timed out|Reached the max retries per request limit.*)$/

/** The dependency failure an error is, or undefined: not a dependency's (our own bug, bad input). */
export function classify (error: unknown): Fault | undefined {
  for (const link of causes(error)) {
    if (link instanceof UpstreamError) return { dependency: 'upstream', retry: link.transient ? 'later' : 'final', code: link.envelopeCode, content: false }
    if (link.name === 'MaxRetriesPerRequestError' || (typeof link.message === 'string' && REDIS_DOWN.test(link.message))) {
      return { dependency: 'redis', retry: 'later', code: 'redis_unavailable', content: false }
    }
    // src/errors.ts mediaStoreUnavailable: the bucket of MEDIA_STORE=s3 did not answer
    if (link.code === 'media_store_unavailable') return { dependency: 'media_store', retry: 'later', code: 'media_store_unavailable', content: false }
    const database = databaseFaultOf(link.code)
    if (database) return { dependency: 'database', ...database }
  }
  return undefined
}

/** Worth trying again later, unchanged: a dependency blinked. Never turn such an error into a final failure. */
export function isRetryLater (error: unknown): boolean {
  return classify(error)?.retry === 'later'
}

/**
 * The database refused the data itself (a value out of range, a constraint, an index row too large):
 * the content of one piece of work that the checks did not foresee. The webhook inbox keeps such an
 * event aside and applies the rest. Anything else that fails a batch is not that event's doing:
 * a blink (`later`) or an unknown error (another SQLSTATE, such as a missing column after a bad
 * migration, or a bug of ours) fails the batch, which the runner retries and at last dead-letters.
 */
export function isContentFault (error: unknown): boolean {
  return classify(error)?.content === true
}

export function isDatabaseUnavailable (error: unknown): boolean {
  const fault = classify(error)
  return fault?.dependency === 'database' && fault.retry === 'later'
}

/** A command that failed because Redis is unreachable (as opposed to a bug of ours). */
export function isRedisUnavailable (error: unknown): boolean {
  return classify(error)?.dependency === 'redis'
}

/** What a log line may say about an error: its fault code, or its class name. Never its message. */
export function faultCode (error: unknown): string {
  return classify(error)?.code ?? ((error as ErrorLike | undefined)?.constructor?.name ?? 'unknown')
}
