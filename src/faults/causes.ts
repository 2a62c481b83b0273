/** What an error object may say about itself; any field can be missing or of another type. */
export interface ErrorLike { name?: unknown, message?: unknown, code?: unknown, cause?: unknown, [field: string]: unknown }

// drizzle wraps the driver's error, which may wrap a socket's: a few links are all a real chain has
const DEPTH = 5

/**
 * An error and its causes, outermost first: the one walk down a `cause` chain (a drizzle error
 * wraps the driver's, a batcher's the statement's). Stops at the first link that is not an object,
 * and after a few links, so a chain that loops on itself ends.
 */
export function * causes (error: unknown): Generator<ErrorLike> {
  let current = error
  for (let depth = 0; depth < DEPTH && typeof current === 'object' && current !== null; depth++) {
    yield current as ErrorLike
    current = (current as ErrorLike).cause
  }
}

/** The first of an error and its causes that satisfies `predicate`. */
export function findCause (error: unknown, predicate: (link: ErrorLike) => boolean): ErrorLike | undefined {
  for (const link of causes(error)) if (predicate(link)) return link
  return undefined
}
