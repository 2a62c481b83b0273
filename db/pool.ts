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

// What the gateway's transactions need of the server: no JIT (a large batch crosses jit_above_cost
// and spent 1–2 s compiling what runs in milliseconds), a transaction whose client was cut off lets
// go of its locks after a minute, and a failing statement's parameters never reach the server's log.
// Behind a transaction pooler they are the transaction's (`set_config(…, true)`), so that the next
// transaction on that server connection keeps nothing of them (docs/operations.md asks the DBA to
// make them the role's defaults, which covers statements outside a transaction).
const SETTINGS: Array<[string, string]> = [['jit', 'off'], ['idle_in_transaction_session_timeout', '60000'], ['log_parameter_max_length_on_error', '0']]
// In session mode they are the session's, set again by each transaction, so that the connection's
// statements outside a transaction have them too; and so is `enable_seqscan = off`. A prepared
// statement keeps the generic plan made for it, without replanning when its table grows (until
// autovacuum analyses the table): made on a nearly empty table, a lookup by a list of ids is planned
// as a read of the whole table, and stays one once the table holds millions of rows. With sequential
// scans off, a table is read whole only where no index serves (tests/db/table-reads.test.ts). Behind
// a transaction pooler nothing is prepared: each plan is made for the table as it is.
const SESSION_SETTINGS: Array<[string, string]> = [...SETTINGS, ['enable_seqscan', 'off']]
const settingsStatement = (settings: Array<[string, string]>, local: boolean) =>
  `select ${settings.map(([name, value]) => `set_config('${name}', '${value}', ${String(local)})`).join(', ')}`
const TRANSACTION_SETTINGS = settingsStatement(SETTINGS, true)
const SESSION_SETTINGS_STATEMENT = settingsStatement(SESSION_SETTINGS, false)

/**
 * The client whose transactions begin with the settings: the session's in session mode
 * (`sessionMode()`), the transaction's otherwise. The statement is sent without waiting for its
 * answer, so it travels with the transaction's first statement: no round trip of its own. Were it
 * to fail, the transaction fails with it.
 */
export function withTransactionSettings (client: Sql, sessionMode: () => boolean = () => false): Sql {
  return new Proxy(client, {
    get (target, key, receiver) {
      if (key !== 'begin') return Reflect.get(target, key, receiver)
      return (...args: unknown[]) => {
        const callback = args.pop() as (transaction: Sql) => unknown
        return (target.begin as (...args: unknown[]) => Promise<unknown>)(...args, async (transaction: Sql) => {
          const settings = transaction.unsafe(sessionMode() ? SESSION_SETTINGS_STATEMENT : TRANSACTION_SETTINGS, [], { prepare: false }).execute()
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
