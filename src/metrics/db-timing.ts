import { PglitePreparedQuery } from 'drizzle-orm/pglite'
import { PostgresJsPreparedQuery } from 'drizzle-orm/postgres-js'

type Observer = (seconds: number) => void
const observers = new Set<Observer>()
let patched = false

/**
 * Times every statement drizzle runs, on both drivers. Neither postgres.js nor PGlite reports a
 * statement's end, so the timing wraps drizzle's prepared-query `execute` (every builder query and
 * raw `db.execute` goes through it). Process-wide: each app's registry adds its observer.
 */
export function observeStatements (observer: Observer): () => void {
  if (!patched) {
    patched = true
    for (const prototype of [PglitePreparedQuery.prototype, PostgresJsPreparedQuery.prototype] as Array<{ execute: (...args: unknown[]) => Promise<unknown> }>) {
      const execute = prototype.execute
      prototype.execute = async function timedExecute (this: unknown, ...args: unknown[]) {
        const start = performance.now()
        try {
          return await execute.apply(this, args)
        } finally {
          const seconds = (performance.now() - start) / 1000
          for (const observe of observers) observe(seconds)
        }
      }
    }
  }
  observers.add(observer)
  return () => observers.delete(observer)
}
