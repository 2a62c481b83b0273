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
import { behindTransactionPooler, poolBudget, withTransactionSettings, type PoolMode, type PoolOptions } from './pool.js'
import { renewableClient } from './renewable.js'
import * as schema from './schema.js'

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>
/** Anything that runs SQL: the database, or the transaction a caller is in (a transactional outbox writes there). */
export type Executor = Pick<Database, 'execute'>
export type DatabaseKind = 'postgres' | 'pglite' | 'memory'

export interface DatabaseHandle {
  db: Database
  kind: DatabaseKind
  /** on PostgreSQL, how it is reached (DATABASE_POOL_MODE, or transaction once a pooler was found in session mode) */
  readonly poolMode?: PoolMode
  /** On PostgreSQL, first tells whether a transaction pooler stands between (CONTRACT.md 22); then applies the migrations it lacks. */
  migrate(): Promise<void>
  ping(): Promise<void>
  /**
   * Calls onNotify on each NOTIFY on the channel, from any process, and after each reconnect of the
   * listening connection, since what was sent meanwhile is lost. Resolves to the function that stops it.
   * Without a session to listen on (transaction mode), it never calls: the caller's wait ends by polling.
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
const WAIT_MS = 2000
const CONNECT_TIMEOUT_S = 3
const RECONNECT_MAX_S = 0.5
const PROBE_MS = 250

const DEFAULT_POOL: PoolOptions = { mode: 'session', max: 10, listens: true }

export interface OpenOptions {
  /** DATABASE_POOL_MODE, DATABASE_POOL_MAX, and whether the process listens (CONTRACT.md 22) */
  pool?: PoolOptions
  /** the one line said at start when a pooler in transaction mode is met in session mode */
  warn?: (line: string) => void
}

/** One interface over the three drivers: PostgreSQL for a postgres URL, PGlite on disk when unset, PGlite in memory for memory://. */
export function openDatabase (databaseUrl: string | undefined, dataDir: string, options: OpenOptions = {}): DatabaseHandle {
  if (databaseUrl?.startsWith('postgres')) return openPostgres(databaseUrl, options.pool ?? DEFAULT_POOL, options.warn ?? (line => console.error(line)))
  if (databaseUrl === 'memory://') return openPglite(openEmbedded(undefined), 'memory')
  return openPglite(openEmbedded(dataDir), 'pglite')
}

function openPostgres (url: string, pool: PoolOptions, warn: (line: string) => void): DatabaseHandle {
  // No startup parameters beyond those every pooler passes (CONTRACT.md 22): what the gateway needs
  // of the server is set per transaction (pool.ts), or by the DBA as the role's defaults (docs/operations.md).
  let mode = pool.mode
  const connect = (max: number) => postgres(url, {
    max,
    onnotice: () => {},
    // postgres.js reads the array types on each new connection and leaves that query's failure
    // unhandled: a database that cuts connections while they open (an admin's terminate, a
    // failover) crashed the process. Every list travels as one JSON parameter (src/store/any-of.ts)
    // and no statement returns an array, so the types are not needed.
    fetch_types: false,
    // behind a transaction pooler a statement prepared on one server connection is not on the next
    prepare: mode === 'session',
    // and one statement at a time on a connection: PgBouncer hands the server connection to another
    // client when a statement ends, and the answer to one written behind it on the same socket
    // went nowhere ("got packet '1' from server when not linked"): its caller waited for ever
    // (tests/db/pooler.test.ts; scripts/patch-postgres.mjs lets transactions run so)
    max_pipeline: mode === 'session' ? 100 : 0,
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, RECONNECT_MAX_S) * (0.5 + Math.random() / 2)
  } as postgres.Options<Record<string, never>>) // max_pipeline is an option its types leave out
  // DATABASE_POOL_MAX in all: the statements' pool, renewed once the database answers after
  // connections failed (renewable.ts); one connection aside for the migration lock, the health check
  // and the detection; LISTEN's own connection (postgres.js opens it) in session mode
  const budget = () => poolBudget({ ...pool, mode })
  const statements = renewableClient(() => connect(budget().statements))
  let aside = connect(budget().aside)
  const prepared = withPreparedStatements(statements.client, () => mode === 'session')
  const gated = withGate(withTransactionSettings(prepared, () => mode === 'session'), { slots: 2 * budget().statements, waitMs: WAIT_MS, probeEveryMs: PROBE_MS, onRecovered: statements.renew })
  const db = drizzlePostgres(gated, { schema })

  /** A session met with a transaction pooler: said once, and every connection opened again as transaction mode needs. */
  async function detectPooler (): Promise<void> {
    if (mode !== 'session') return
    const other = connect(1)
    try {
      if (!await behindTransactionPooler(aside, other)) return
    } finally {
      await other.end({ timeout: 5 })
    }
    warn('DATABASE_POOL_MODE is session, but the database is reached through a pooler in transaction mode (each transaction may run on another server connection): running as DATABASE_POOL_MODE=transaction; set it so to say this no more')
    mode = 'transaction'
    const old = aside
    aside = connect(budget().aside)
    await old.end({ timeout: 5 })
    statements.renew()
  }

  return {
    db,
    kind: 'postgres',
    get poolMode () { return mode },
    async migrate () {
      await detectPooler()
      if (await upToDate(db)) return
      // Several processes may start at once: one migrates, the others wait and then find nothing to do.
      // The lock is a transaction's (a reserved connection never opens without fetch_types), held
      // while another connection migrates, however long that takes.
      await aside.begin(async holder => {
        await holder`set local idle_in_transaction_session_timeout = 0`
        await holder`select pg_advisory_xact_lock(${MIGRATION_LOCK})`
        await migratePostgres(db, { migrationsFolder })
      })
    },
    async ping () { await within(aside`select 1`, WAIT_MS) },
    async onNotify (channel, onNotify) {
      if (budget().listener === 0) return async () => {}
      // postgres.js listens on a connection of its own, reconnects it by itself and runs the third argument on each (re)listen.
      const { unlisten } = await aside.listen(channel, () => onNotify(), onNotify)
      return unlisten
    },
    async close () { await Promise.all([statements.end({ timeout: 5 }), aside.end({ timeout: 5 })]) }
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
