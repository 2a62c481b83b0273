import { databaseFaultOf } from '../../db/faults.js'
import { UpstreamError } from '../upstream/errors.js'

/** Which dependency failed. */
export type Dependency = 'database' | 'redis' | 'upstream'

/**
 * A dependency's failure, classified once (CONTRACT.md 12): `later` when the dependency may answer
 * differently soon (a lost connection, a timeout, an overloaded or restarting server: nothing about
 * the work itself is wrong), `final` when it answered and the answer stands (a constraint the row
 * breaks, a permanent upstream refusal). `code` names it for logs and records: a SQLSTATE, a driver's
 * connection code, or ours; never a message, which can carry a statement's parameters.
 */
export interface Fault { dependency: Dependency, retry: 'later' | 'final', code: string }

// ioredis, with enableOfflineQueue off: what a command gets while the connection is down or lost,
// its messages exactly (a task's own error text, such as a customer endpoint's, never matches one).
const REDIS_DOWN = /^(Stream isn't writeable and enableOfflineQueue options is false|Connection is closed\.|Command timed out|Reached the max retries per request limit.*)$/

interface ErrorLike { name?: unknown, message?: unknown, code?: unknown, cause?: unknown }

/** The dependency failure an error is, or undefined: not a dependency's (our own bug, bad input). */
export function classify (error: unknown): Fault | undefined {
  for (let current = error as ErrorLike | undefined, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (current instanceof UpstreamError) return { dependency: 'upstream', retry: current.transient ? 'later' : 'final', code: current.envelopeCode }
    if (current.name === 'MaxRetriesPerRequestError' || (typeof current.message === 'string' && REDIS_DOWN.test(current.message))) {
      return { dependency: 'redis', retry: 'later', code: 'redis_unavailable' }
    }
    const database = databaseFaultOf(current.code)
    if (database) return { dependency: 'database', ...database }
    current = current.cause as ErrorLike | undefined
  }
  return undefined
}

/** Worth trying again later, unchanged: a dependency blinked. Never turn such an error into a final failure. */
export function isRetryLater (error: unknown): boolean {
  return classify(error)?.retry === 'later'
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
