import type { Sql } from 'postgres'

/** A statement that could not start: the database is unreachable (`DATABASE_UNAVAILABLE`) or every connection stayed busy (`DATABASE_WAIT_TIMEOUT`). */
export class DatabaseNotReached extends Error {
  constructor (readonly code: 'DATABASE_UNAVAILABLE' | 'DATABASE_WAIT_TIMEOUT', message: string) {
    super(message)
  }
}

export interface GateOptions {
  /** statements in postgres.js at once: its connections, and some pipelining on them */
  slots: number
  /** the longest a statement waits here for a slot */
  waitMs: number
  /** while the database is unreachable, one statement in this long goes through as a probe; the others fail at once */
  probeEveryMs: number
  /** the first success after connections failed (at most every RENEW_EVERY_MS): time to renew the driver's pool */
  onRecovered?: () => void
}

// What a statement meets when the database is gone (postgres.js's own codes, Node's socket errors,
// SQLSTATE 08 connection exception, 57P01–57P03 shutdown and "cannot connect now").
// the database counts as gone when statements fail this way and none has succeeded for this long
const SUCCESS_WINDOW_MS = 500
const RENEW_EVERY_MS = 5000
const GONE = /^(CONNECTION_CLOSED|CONNECTION_DESTROYED|CONNECT_TIMEOUT|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08[0-9A-Z]{3}|57P0[1-3])$/

/**
 * The client behind a gate of its own (CONTRACT.md 12: 503 within 5 s while the database is
 * unreachable, as usual within 5 s of its return, never a hang). postgres.js keeps statements
 * queued while it reconnects, so without this a request waits for the outage to end (measured:
 * 9.7 s to an answer, and 32.7 s after the database returned). Here a statement enters postgres.js
 * only with a slot, so the few inside fail as fast as connections do; the others wait here, where
 * a wait can end without touching the driver: at `waitMs`, or at once while the database is known
 * to be gone, but for one probe every `probeEveryMs` that finds it back. Transactions hold a slot
 * throughout; their statements run on their own connection.
 */
export function withGate (client: Sql, options: GateOptions): Sql {
  const gate = createGate(options)
  return new Proxy(client, {
    get (target, key, receiver) {
      switch (key) {
        case 'unsafe':
          return (...args: unknown[]) => gated(gate, () => (target.unsafe as (...args: unknown[]) => PromiseLike<unknown> & { values (): PromiseLike<unknown> })(...args))
        case 'begin':
          return async (...args: unknown[]) => await gate.run(async () => await (target.begin as (...args: unknown[]) => Promise<unknown>)(...args))
        default:
          return Reflect.get(target, key, receiver)
      }
    }
  })
}

/** What drizzle does with `unsafe`'s query: `.values()` perhaps, then await it. The query is made once a slot is free. */
function gated (gate: Gate, start: () => PromiseLike<unknown> & { values (): PromiseLike<unknown> }) {
  let values = false
  let running: Promise<unknown> | undefined
  const query = {
    values () { values = true; return query },
    then (resolve?: (value: unknown) => unknown, reject?: (error: unknown) => unknown) {
      running ??= gate.run(async () => { const started = start(); return await (values ? started.values() : started) })
      return running.then(resolve, reject)
    }
  }
  return query
}

interface Gate { run<T> (work: () => Promise<T>): Promise<T> }

function createGate (options: GateOptions): Gate {
  let free = options.slots
  const waiting: Array<{ grant (): void, refuse (error: Error): void }> = []
  let gone = false
  let lastProbe = 0
  let lastSuccess = 0
  let troubled = false
  let lastRecovery = 0

  function unreachable (): DatabaseNotReached {
    return new DatabaseNotReached('DATABASE_UNAVAILABLE', 'the database is unreachable')
  }

  async function acquire (): Promise<void> {
    if (gone) {
      if (Date.now() - lastProbe < options.probeEveryMs) throw unreachable()
      lastProbe = Date.now()
    }
    if (free > 0 && waiting.length === 0) { free--; return }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = waiting.indexOf(entry)
        if (index >= 0) waiting.splice(index, 1)
        reject(new DatabaseNotReached('DATABASE_WAIT_TIMEOUT', `no database connection was free within ${options.waitMs} ms`))
      }, options.waitMs)
      const entry = {
        grant () { clearTimeout(timer); resolve() },
        refuse (error: Error) { clearTimeout(timer); reject(error) }
      }
      waiting.push(entry)
    })
  }

  function release (): void {
    const next = waiting.shift()
    if (next) next.grant()
    else free++
  }

  return {
    async run (work) {
      await acquire()
      try {
        const result = await work()
        gone = false
        lastSuccess = Date.now()
        if (troubled && lastSuccess - lastRecovery >= RENEW_EVERY_MS) {
          troubled = false
          lastRecovery = lastSuccess
          options.onRecovered?.()
        }
        return result
      } catch (error) {
        const { code, cause } = (error ?? {}) as { code?: unknown, cause?: { code?: unknown } }
        const connectionFailed = GONE.test(String(code ?? cause?.code ?? ''))
        troubled ||= connectionFailed
        // one connection's failure while others succeed (a slow connect on a loaded server) is not an outage
        if (!gone && connectionFailed && Date.now() - lastSuccess > SUCCESS_WINDOW_MS) {
          gone = true
          lastProbe = Date.now()
          // the database is gone: whatever waits here fails now rather than at its deadline
          for (const entry of waiting.splice(0)) entry.refuse(unreachable())
        }
        throw error
      } finally {
        release()
      }
    }
  }
}

/** `work`, or DATABASE_WAIT_TIMEOUT when it has not settled within waitMs (for the health check's own statement). */
export async function within<T> (work: PromiseLike<T>, waitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatabaseNotReached('DATABASE_WAIT_TIMEOUT', `the database did not answer within ${waitMs} ms`)), waitMs)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}
