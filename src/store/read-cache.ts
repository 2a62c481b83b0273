import { sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'

/** The NOTIFY channel on which a write tells every process sharing the database to drop its cache. */
export const CACHE_CHANNEL = 'outbound_cache'

// CONTRACT.md 2 lets a revoked key work for at most 1 s, also across processes; this is the backstop
// for a lost notification, with a margin under that second.
export const TTL_MS = 900
// Only keys and workspaces that exist are kept, so this is far above need: a guard, not a tuning knob.
const MAX_ENTRIES = 10_000

interface Entry { value: Promise<unknown>, readAt: number }

/**
 * What the send path reads on every request (the key by its prefix, the workspace's active
 * connection), kept for under a second. A store write that changes any of it calls changed(): this
 * process drops everything at once, the others when the notification reaches them (plugins/db.ts).
 */
export function readCache (db: Database) {
  const entries = new Map<string, Entry>()

  function clear (): void {
    entries.clear()
  }

  return {
    /**
     * The value under key if read less than TTL_MS ago, else load()'s, kept only when `keep` accepts
     * it. Concurrent readers of a missing key share one load.
     */
    async read<T> (key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      const hit = entries.get(key)
      if (hit && Date.now() - hit.readAt < TTL_MS) return await (hit.value as Promise<T>)
      if (entries.size >= MAX_ENTRIES) clear()
      // Aged from before the read: the value may be as old as the moment the query started.
      const entry: Entry = { readAt: Date.now(), value: load() }
      entries.set(key, entry)
      // Misses and failures are not kept. A clear() during the load removes the entry at once, so a value
      // that may predate the change is never served after it.
      const drop = () => { if (entries.get(key) === entry) entries.delete(key) }
      entry.value.then(value => { if (!keep(value as T)) drop() }, drop)
      return await (entry.value as Promise<T>)
    },

    clear,

    /** After a write to what is cached: dropped here at once, and in the other processes on notification. */
    async changed (): Promise<void> {
      clear()
      // The write has committed whatever happens here; a lost notification only means the others wait out TTL_MS.
      await db.execute(sql`select pg_notify(${CACHE_CHANNEL}, '')`).catch(() => {})
    }
  }
}

export type ReadCache = ReturnType<typeof readCache>
