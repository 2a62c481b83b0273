/**
 * Database errors by their SQLSTATE only: drizzle's error message carries the query's parameters
 * (message texts, phone numbers), so no message of theirs is ever logged or stored from here.
 */
export function databaseErrorCode (error: unknown): string {
  let current = error as { code?: unknown, cause?: unknown } | undefined
  for (let depth = 0; depth < 4 && current; depth++) {
    if (typeof current.code === 'string' && /^[A-Z0-9_]{1,40}$/.test(current.code)) return current.code
    current = current.cause as typeof current
  }
  return 'unknown'
}

// Data exceptions (22), integrity violations (23), program limits such as an index row too large (54):
// what one event's content can cause. Anything else (a lost connection, a deadlock, a bug) is retried.
const CONTENT_CLASSES = /^(22|23|54)[0-9A-Z]{3}$/

/** Not caused by the content of the events applied: the batch is retried rather than an event kept aside. */
export function isTransientDatabaseError (error: unknown): boolean {
  return !CONTENT_CLASSES.test(databaseErrorCode(error))
}

/** An error safe to log and to keep as a job's last error: its code, no parameters. */
export class ApplyError extends Error {
  readonly code: string
  constructor (cause: unknown) {
    const code = databaseErrorCode(cause)
    super(`applying webhook deliveries failed (${code})`)
    this.code = code
  }
}
