import type { Sql } from 'postgres'

export interface RenewableClient {
  /** stands for the current client: what is read from it is read from the client of the moment */
  client: Sql
  /** A fresh client from now on; the old one finishes what it runs (up to 10 s) and ends. */
  renew (): void
  end (options?: { timeout?: number }): Promise<void>
}

/**
 * A postgres.js client that can be swapped for a fresh one behind the same reference (drizzle holds
 * it). After connections failed, postgres.js can keep a pool connection that never completes its
 * start-up (seen after an outage: one connection timing out every 4.5 s for half a minute, failing
 * a statement each time); a fresh pool once the database answers again leaves that behind.
 * postgres.js's functions are closures over their client, so forwarding property reads is enough.
 */
export function renewableClient (make: () => Sql): RenewableClient {
  let current = make()
  const ending = new Set<Promise<void>>()
  const client = new Proxy(current, {
    get (_target, key) { return Reflect.get(current, key) }
  })
  return {
    client,
    renew () {
      const old = current
      current = make()
      // what drizzle set on the first (its type parsers and serializers) holds for every client
      Object.assign(current.options.parsers, old.options.parsers)
      Object.assign(current.options.serializers, old.options.serializers)
      const ended = old.end({ timeout: 10 }).catch(() => {}).finally(() => ending.delete(ended))
      ending.add(ended)
    },
    async end (options) {
      await Promise.all([current.end(options), ...ending])
    }
  }
}
