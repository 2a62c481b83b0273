import type { Sql } from 'postgres'

/** A statement that found no connection to run on within its wait: the database is unreachable or saturated. */
export class DatabaseWaitTimeout extends Error {
  readonly code = 'DATABASE_WAIT_TIMEOUT'
  constructor (waitMs: number) {
    super(`no database connection answered within ${waitMs} ms`)
  }
}

// postgres.js's query: a lazy promise; `state` is set once it is handed to a connection, `cancel`
// takes back one that was not (it is then never sent).
interface PendingQuery { state: unknown, cancel (): unknown }

/**
 * The client with a bound on how long a statement may wait to start. While PostgreSQL is
 * unreachable, postgres.js keeps statements queued and reconnects, so a request would wait for the
 * outage to end (measured: 9.7 s to an answer, 32.7 s after the database returned); past `waitMs` a
 * statement that was never sent is cancelled (it rejects with SQLSTATE 57014 and is never run), and
 * a transaction that has not begun is abandoned (if it begins later it rolls back at once). What was
 * sent is bounded by the connection itself: a reset connection fails its statements at once.
 */
export function withWaitDeadline (client: Sql, waitMs: number): Sql {
  return new Proxy(client, {
    get (target, key, receiver) {
      switch (key) {
        case 'unsafe':
          return (...args: unknown[]) => {
            const query = (target.unsafe as (...args: unknown[]) => unknown)(...args)
            // a weak reference: a query long settled (and its rows) is not kept alive by its timer
            const pending = new WeakRef(query as PendingQuery)
            setTimeout(() => {
              const waiting = pending.deref()
              if (waiting && !waiting.state) waiting.cancel()
            }, waitMs).unref()
            return query
          }
        case 'begin':
          return async (...args: unknown[]) => await beginWithin(target, args, waitMs)
        default:
          return Reflect.get(target, key, receiver)
      }
    }
  })
}

async function beginWithin (target: Sql, args: unknown[], waitMs: number): Promise<unknown> {
  const callback = args.pop() as (transaction: Sql) => unknown
  let begun = false
  let abandoned = false
  const run = (target.begin as (...args: unknown[]) => Promise<unknown>)(...args, async (transaction: Sql) => {
    begun = true
    if (abandoned) throw new DatabaseWaitTimeout(waitMs)
    return await callback(transaction)
  })
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (begun) return
      abandoned = true
      reject(new DatabaseWaitTimeout(waitMs))
    }, waitMs)
    run.then(value => { clearTimeout(timer); resolve(value) }, (error: unknown) => { clearTimeout(timer); reject(error) })
  })
}

/** A promise that rejects with DatabaseWaitTimeout unless `work` settles within waitMs. */
export async function within<T> (work: PromiseLike<T>, waitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([work, new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new DatabaseWaitTimeout(waitMs)), waitMs) })])
  } finally {
    clearTimeout(timer)
  }
}
