import type { Sql } from 'postgres'

// A statement text with at most this many parameters is prepared on its connection. The texts that
// vary with their input (an id list spelled `in ($1, $2, …)`, a multi-row insert) vary in their
// parameter count, so the cap bounds what each connection keeps by the code's query sites; the hot
// statements take their batch as one JSON parameter and are always prepared.
const MAX_PREPARED_PARAMETERS = 16

/**
 * The client with drizzle's statements prepared. drizzle runs every query through `unsafe` with
 * `prepare: false` (only a query given a name is prepared), and postgres.js then makes two round
 * trips for each one with parameters: Parse + Describe to learn their types, then Bind + Execute, the
 * statement parsed again every time. A prepared statement is described once per connection and then
 * costs one round trip and no parse (docs/decisions/002-database.md, "Prepared statements").
 * While `prepares()` is false (behind a transaction pooler: the next statement may run on another
 * server connection) nothing is prepared.
 */
export function withPreparedStatements (client: Sql, prepares: () => boolean = () => true): Sql {
  return new Proxy(client, {
    get (target, key, receiver) {
      switch (key) {
        case 'unsafe':
          return (query: string, parameters: unknown[] = [], options: Record<string, unknown> = {}) =>
            target.unsafe(query, parameters as never, { ...options, prepare: prepares() && parameters.length > 0 && parameters.length <= MAX_PREPARED_PARAMETERS })
        case 'begin':
        case 'savepoint':
          // a transaction's queries run on the client it hands to its callback
          return (...args: unknown[]) => {
            const callback = args.pop() as (transaction: Sql) => unknown
            return ((target as unknown as Record<string, (...args: unknown[]) => unknown>)[key])(...args, (transaction: Sql) => callback(withPreparedStatements(transaction, prepares)))
          }
        default:
          return Reflect.get(target, key, receiver)
      }
    }
  })
}
