import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, rowsOf, type DatabaseHandle } from '../../db/client.js'
import type { PoolOptions } from '../../db/pool.js'
import { sql } from 'drizzle-orm'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'

const serverUrl = process.env.TEST_DATABASE_URL
const poolerUrl = process.env.TEST_PGBOUNCER_URL
const SESSION: PoolOptions = { mode: 'session', max: 4, listens: true }

/** The database of a test file on the server, reached directly or through the pooler (same name on both). */
function through (database: TestDatabase, base: string): string {
  const url = new URL(base)
  url.pathname = new URL(database.url).pathname
  return url.toString()
}

/** Settles with the work, or fails after `ms`: an answer lost on the way fails the test rather than hanging it. */
async function within<T> (work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms) })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describe.runIf(serverUrl)('how the server reaches PostgreSQL (CONTRACT.md 22)', () => {
  let database: TestDatabase | undefined
  let handle: DatabaseHandle | undefined
  afterEach(async () => {
    await handle?.close()
    await database?.drop()
    handle = database = undefined
  })

  it('directly in session mode: no pooler is reported, statements stay prepared, LISTEN hears NOTIFY', async () => {
    database = await createPostgresDatabase(serverUrl!)
    const lines: string[] = []
    handle = openDatabase(through(database, serverUrl!), '/nonexistent', { pool: SESSION, warn: line => lines.push(line) })
    await handle.migrate()
    expect(lines).toEqual([])
    expect(handle.poolMode).toBe('session')
    let heard = 0
    const stop = await handle.onNotify('outbound_pooler_test', () => { heard++ })
    const before = heard
    await handle.db.execute(sql`select pg_notify('outbound_pooler_test', '')`)
    await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThan(before)
    await stop()
    // a transaction leaves its connection with the session's settings: the statements outside a
    // transaction that run on it next are planned with sequential scans off as well
    const settings = await Promise.all(Array.from({ length: SESSION.max }, async () => await handle!.db.transaction(async tx =>
      rowsOf<{ seqscan: string, jit: string }>(await tx.execute(sql`select current_setting('enable_seqscan') as seqscan, current_setting('jit') as jit`))[0])))
    expect(settings.every(setting => setting.seqscan === 'off' && setting.jit === 'off')).toBe(true)
    const outside = await Promise.all(Array.from({ length: 8 }, async () =>
      rowsOf<{ seqscan: string }>(await handle!.db.execute(sql`select current_setting('enable_seqscan') as seqscan`))[0].seqscan))
    expect(outside).toEqual(outside.map(() => 'off'))
  })

  it.runIf(poolerUrl)('behind PgBouncer in transaction mode, met in session mode: said in one line, then run as transaction mode', async () => {
    database = await createPostgresDatabase(serverUrl!)
    const lines: string[] = []
    handle = openDatabase(through(database, poolerUrl!), '/nonexistent', { pool: SESSION, warn: line => lines.push(line) })
    // PgBouncer refuses a connection with a startup parameter it does not pass: migrating is connecting
    await handle.migrate()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^DATABASE_POOL_MODE is session, but the database is reached through a pooler in transaction mode.*DATABASE_POOL_MODE=transaction/)
    expect(handle.poolMode).toBe('transaction')
    // the same statement text with different parameters, many times over: a statement prepared on
    // one server connection and run on another would fail or answer another statement's rows
    const answers = await Promise.all(Array.from({ length: 60 }, async (_, index) =>
      rowsOf<{ n: number }>(await handle!.db.execute(sql`select ${index}::int as n`))[0].n))
    expect(answers).toEqual(Array.from({ length: 60 }, (_, index) => index))
    // the transactions' settings hold inside them and leave nothing behind
    const inside = await handle.db.transaction(async tx => rowsOf<{ jit: string }>(await tx.execute(sql`select current_setting('jit') as jit`))[0].jit)
    expect(inside).toBe('off')
    const after = await Promise.all(Array.from({ length: 8 }, async () =>
      rowsOf<{ jit: string, seqscan: string }>(await handle!.db.execute(sql`select current_setting('jit') as jit, current_setting('enable_seqscan') as seqscan`))[0]))
    expect(after).toEqual(after.map(() => ({ jit: 'on', seqscan: 'on' })))
  })

  it.runIf(poolerUrl)('behind PgBouncer with DATABASE_POOL_MODE=transaction: nothing to report', async () => {
    database = await createPostgresDatabase(serverUrl!)
    const lines: string[] = []
    handle = openDatabase(through(database, poolerUrl!), '/nonexistent', { pool: { ...SESSION, mode: 'transaction' }, warn: line => lines.push(line) })
    await handle.migrate()
    expect(lines).toEqual([])
    expect(handle.poolMode).toBe('transaction')
    await handle.ping()
  })

  it.runIf(poolerUrl)('behind PgBouncer in transaction mode: a statement made while another runs on its connection gets its answer', async () => {
    database = await createPostgresDatabase(serverUrl!)
    // DATABASE_POOL_MAX=2: one statement connection, so the second statement meets it busy
    handle = openDatabase(through(database, poolerUrl!), '/nonexistent', { pool: { mode: 'transaction', max: 2, listens: false } })
    for (let round = 0; round < 10; round++) {
      // postgres.js would write the second behind the first on the same socket; PgBouncer hands the
      // server connection to another client when the first ends, and the second's answer went
      // nowhere ("got packet '1' from server when not linked"): so one statement at a time (db/client.ts)
      const first = handle.db.execute(sql`select pg_sleep(0.05)`)
      await new Promise(resolve => setTimeout(resolve, 10))
      const second = handle.db.execute(sql`select ${round}::int as n`)
      const [, answer] = await within(Promise.all([first, second]), 5000, 'a statement behind another')
      expect(rowsOf<{ n: number }>(answer)[0].n).toBe(round)
    }
    // and transactions, whose BEGIN takes its connection even so (scripts/patch-postgres.mjs)
    const inside = await within(Promise.all(Array.from({ length: 20 }, async (_, index) => await handle!.db.transaction(async tx =>
      rowsOf<{ n: number }>(await tx.execute(sql`select ${index}::int as n`))[0].n))), 5000, 'transactions at once')
    expect(inside).toEqual(Array.from({ length: 20 }, (_, index) => index))
  })

  it.skipIf(poolerUrl)('through PgBouncer: skipped, TEST_PGBOUNCER_URL is not set (.ci/run starts one: scripts/pgbouncer.sh)', () => {})
})
