import type { Sql } from 'postgres'

/** How the server reaches PostgreSQL: its own sessions, or a pooler that may hand each transaction another server connection (CONTRACT.md 22). */
export type PoolMode = 'session' | 'transaction'

export interface PoolOptions {
  mode: PoolMode
  /** the most connections this process opens, every use included (DATABASE_POOL_MAX) */
  max: number
  /** whether this process listens for other processes' notifications (the server; the CLI does not) */
  listens: boolean
}

export interface PoolBudget {
  /** the statements' pool (db/renewable.ts, behind the gate) */
  statements: number
  /** one connection aside: the migration lock's holder, the health check, the pooler detection */
  aside: 1
  /** LISTEN's own connection: only in session mode, and only where the budget leaves room for it */
  listener: 0 | 1
}

/**
 * DATABASE_POOL_MAX split between the uses of a process. LISTEN needs a session of its own: without
 * one (transaction mode, or a budget of 2) notifications are not heard and the read cache's own
 * expiry, under a second, is the wait's bound (src/store/read-cache.ts).
 */
export function poolBudget ({ mode, max, listens }: PoolOptions): PoolBudget {
  const listener = listens && mode === 'session' && max >= 3 ? 1 : 0
  return { statements: Math.max(1, max - 1 - listener), aside: 1, listener }
}

// What the gateway's transactions need of the server, set for the transaction only (`set_config(…, true)`),
// so that a pooler that hands the next transaction another connection keeps nothing of it:
// no JIT (a large batch crosses jit_above_cost and spent 1–2 s compiling what runs in milliseconds),
// a transaction whose client was cut off lets go of its locks after a minute, and a failing
// statement's parameters never reach the server's log (docs/operations.md asks the DBA to make the
// same settings the role's defaults, which also covers statements outside a transaction).
const TRANSACTION_SETTINGS = "select set_config('jit', 'off', true), set_config('idle_in_transaction_session_timeout', '60000', true), set_config('log_parameter_max_length_on_error', '0', true)"

/**
 * The client whose transactions begin with TRANSACTION_SETTINGS. The statement is sent without
 * waiting for its answer, so it travels with the transaction's first statement: no round trip of
 * its own. Were it to fail, the transaction fails with it.
 */
export function withTransactionSettings (client: Sql): Sql {
  return new Proxy(client, {
    get (target, key, receiver) {
      if (key !== 'begin') return Reflect.get(target, key, receiver)
      return (...args: unknown[]) => {
        const callback = args.pop() as (transaction: Sql) => unknown
        return (target.begin as (...args: unknown[]) => Promise<unknown>)(...args, async (transaction: Sql) => {
          const settings = transaction.unsafe(TRANSACTION_SETTINGS, [], { prepare: false }).execute()
          settings.catch(() => {})
          const result = await callback(transaction)
          await settings
          return result
        })
      }
    }
  })
}

const ROUNDS = 3

/**
 * Whether the connections reach PostgreSQL through a pooler in transaction (or statement) mode:
 * `a` and `b` are two connections of their own (max 1 each). A session keeps its server process;
 * behind such a pooler, a connection's next transaction may run in another one, and two connections
 * take turns on the same one (PgBouncer hands out its most recently used server connection first).
 * Either seen in a few rounds tells. Each check is a statement of its own, never prepared.
 */
export async function behindTransactionPooler (a: Sql, b: Sql): Promise<boolean> {
  const pid = async (client: Sql) => Number((await client.unsafe('select pg_backend_pid() as pid', [], { prepare: false }))[0].pid)
  for (let round = 0; round < ROUNDS; round++) {
    const first = await pid(a)
    let shared = false
    let moved = false
    // b holds a transaction open across a's second look: a session pooler or a direct connection
    // keeps each in its own process; a transaction pooler gives them different ones or the same.
    await b.begin(async transaction => {
      const held = Number((await transaction.unsafe('select pg_backend_pid() as pid', [], { prepare: false }))[0].pid)
      const second = await pid(a)
      shared = held === first || held === second
      moved = second !== first
    })
    if (shared || moved) return true
  }
  return false
}
