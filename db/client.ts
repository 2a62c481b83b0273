import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { openEmbedded } from './embedded.js'
import { withPreparedStatements } from './prepared.js'
import { within, withGate } from './gate.js'
import { renewableClient } from './renewable.js'
import * as schema from './schema.js'

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>
/** Anything that runs SQL: the database, or the transaction a caller is in (a transactional outbox writes there). */
export type Executor = Pick<Database, 'execute'>
export type DatabaseKind = 'postgres' | 'pglite' | 'memory'

export interface DatabaseHandle {
  db: Database
  kind: DatabaseKind
  migrate(): Promise<void>
  ping(): Promise<void>
  /**
   * Calls onNotify on each NOTIFY on the channel, from any process, and after each reconnect of the
   * listening connection, since what was sent meanwhile is lost. Resolves to the function that stops it.
   */
  onNotify(channel: string, onNotify: () => void): Promise<() => Promise<void>>
  close(): Promise<void>
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))
// Any constant works: it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_240_317
// CONTRACT.md 12: a request that needs an unreachable database answers 503 within 5 s, and within
// 5 s of its return every route answers as usual (gate.ts). A statement waits at most WAIT_MS for a
// slot; a connection attempt takes at most CONNECT_TIMEOUT_S; a failed one is retried after at most
// RECONNECT_MAX_S (postgres.js's own backoff grows to 20 s: measured, a request hung 32.7 s after
// the database returned); while it is gone, a probe goes through every PROBE_MS.
const CONNECTIONS = 10
const WAIT_MS = 2000
const CONNECT_TIMEOUT_S = 3
const RECONNECT_MAX_S = 0.5
const PROBE_MS = 250

/** One interface over the three drivers: PostgreSQL for a postgres URL, PGlite on disk when unset, PGlite in memory for memory://. */
export function openDatabase (databaseUrl: string | undefined, dataDir: string): DatabaseHandle {
  if (databaseUrl?.startsWith('postgres')) return openPostgres(databaseUrl)
  if (databaseUrl === 'memory://') return openPglite(openEmbedded(undefined), 'memory')
  return openPglite(openEmbedded(dataDir), 'pglite')
}

function openPostgres (url: string): DatabaseHandle {
  // No JIT: the gateway's statements are short, and a large batch (an inbox batch of 25,000
  // statuses) crosses jit_above_cost and spends 1–2 s compiling what runs in milliseconds.
  // No sequential scan where an index can serve: prepared statements keep the plan made for them,
  // often while a table was nearly empty, when a whole-table read looked cheapest; the same plan
  // read the whole table again for every batch once it held thousands of rows (docs/decisions/002-database.md).
  const connect = (max: number) => postgres(url, {
    max,
    onnotice: () => {},
    // postgres.js reads the array types on each new connection and leaves that query's failure
    // unhandled: a database that cuts connections while they open (an admin's terminate, a
    // failover) crashed the process. Every list travels as one JSON parameter (src/store/any-of.ts)
    // and no statement returns an array, so the types are not needed.
    fetch_types: false,
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: retries => Math.min(0.05 * 2 ** retries, RECONNECT_MAX_S) * (0.5 + Math.random() / 2),
    // a transaction whose client was cut off (a network partition leaves no reset) lets go of its
    // locks after a minute rather than when TCP keepalive gives up on it, hours later
    // A failing statement's parameters (message texts, phone numbers, key hashes) never reach the
    // server's log: the one logging setting any role may set for itself (CONTRACT.md 12; the
    // superuser-only ones, log_error_verbosity and log_min_error_statement, are the DBA's: README).
    connection: { jit: 'off', enable_seqscan: 'off', idle_in_transaction_session_timeout: 60_000, log_parameter_max_length_on_error: 0 }
  })
  // the statements' pool, renewed once the database answers after connections failed (renewable.ts);
  // the migration lock, the health check and LISTEN keep a small client of their own
  const statements = renewableClient(() => connect(CONNECTIONS))
  const client = connect(2)
  const gated = withGate(withPreparedStatements(statements.client), { slots: 2 * CONNECTIONS, waitMs: WAIT_MS, probeEveryMs: PROBE_MS, onRecovered: statements.renew })
  const db = drizzlePostgres(gated, { schema })
  return {
    db,
    kind: 'postgres',
    async migrate () {
      if (await upToDate(db)) return
      // Several processes may start at once: one migrates, the others wait and then find nothing to do.
      // The lock is a transaction's (a reserved connection never opens without fetch_types), held
      // while another connection migrates, however long that takes.
      await client.begin(async holder => {
        await holder`set local idle_in_transaction_session_timeout = 0`
        await holder`select pg_advisory_xact_lock(${MIGRATION_LOCK})`
        await migratePostgres(db, { migrationsFolder })
      })
    },
    async ping () { await within(client`select 1`, WAIT_MS) },
    async onNotify (channel, onNotify) {
      // postgres.js listens on a connection of its own, reconnects it by itself and runs the third argument on each (re)listen.
      const { unlisten } = await client.listen(channel, () => onNotify(), onNotify)
      return unlisten
    },
    async close () { await Promise.all([statements.end({ timeout: 5 }), client.end({ timeout: 5 })]) }
  }
}

export function openPglite (client: PGlite, kind: DatabaseKind): DatabaseHandle {
  const db = drizzlePglite(client, { schema })
  return {
    db,
    kind,
    async migrate () { if (!await upToDate(db)) await migratePglite(db, { migrationsFolder }) },
    async ping () { await db.execute(sql`select 1`) },
    // Only one process opens an embedded database (src/embedded-lock.ts): there is no one else to hear from.
    async onNotify () { return async () => {} },
    async close () { if (!client.closed) await client.close() }
  }
}

/**
 * Whether the database holds every migration of the journal, in one query: the migrator's own test
 * (it applies a migration when the last one applied is older), without its DDL, its transaction, or
 * on PostgreSQL the connection and lock it migrates under. Every command and start asks this first.
 */
async function upToDate (db: Database): Promise<boolean> {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: { when: number }[] }
  const newest = Math.max(...journal.entries.map(entry => entry.when))
  try {
    const [last] = rowsOf<{ created_at: string | number }>(await db.execute(sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`))
    return last !== undefined && Number(last.created_at) >= newest
  } catch {
    return false // a new database: no migrations table yet
  }
}

/** The rows of a raw `db.execute` result, whichever driver ran it (postgres.js returns them as is, PGlite in `rows`). */
export function rowsOf<T> (result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows?: T[] }).rows ?? []) as T[]
}
