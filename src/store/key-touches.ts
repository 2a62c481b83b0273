import { and, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { apiKeys } from '../../db/schema.js'
import { anyOf } from './any-of.js'

// last_used_at is a hint for humans: once a minute is precise enough, and spares a write per request.
export const LAST_USED_RESOLUTION_MS = 60_000
// One entry per key this process has seen in use: the bound only guards against surprises.
const MAX_TOUCHED = 10_000

/**
 * last_used_at, written at most once a minute per key and never on a request's path: a use that is
 * due is queued and the queue is written by one statement in the background (those queued while it
 * runs go in the next). Across processes the statement writes only a value older than a minute by
 * the database's clock, so the row changes at most once a minute however many processes share it.
 */
export function keyTouches (db: Database) {
  // When this process last queued a write, per key: the cached row still shows the value from before.
  const touchedAt = new Map<string, number>()
  const queued = new Set<string>()
  let writing = false

  function write (): void {
    const ids = [...queued]
    queued.clear()
    writing = true
    db.update(apiKeys).set({ lastUsedAt: sql`now()` })
      .where(and(sql`${apiKeys.id} = ${anyOf(ids)}`, or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '${sql.raw(String(LAST_USED_RESOLUTION_MS / 1000))} seconds'`))))
      // A failed write (the database away) loses a hint, not a request: the next use a minute on tries again.
      .then(() => {}, () => {})
      .finally(() => {
        writing = false
        if (queued.size > 0) write()
      })
  }

  return {
    /** A use of the key whose stored last_used_at is `stored`; returns at once. */
    touch (id: string, stored: Date | null): void {
      const last = Math.max(stored?.getTime() ?? 0, touchedAt.get(id) ?? 0)
      if (Date.now() - last < LAST_USED_RESOLUTION_MS) return
      if (touchedAt.size >= MAX_TOUCHED) touchedAt.clear()
      touchedAt.set(id, Date.now())
      queued.add(id)
      if (!writing) write()
    }
  }
}
