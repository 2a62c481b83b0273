import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, rowsOf, type Database, type DatabaseHandle } from '../../db/client.js'
import { functionSources, generate } from '../../scripts/sql-functions.mjs'
import { createTestDatabase, type TestDatabase } from '../helpers/database.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SOURCES = 'function_sources'

/** Each plpgsql function of a schema as the server prints it back (pg_get_functiondef), its schema's name left out. */
async function definitions (db: Database, schema: string): Promise<Record<string, string>> {
  const rows = rowsOf<{ name: string, definition: string }>(await db.execute(sql`select p.proname as name, pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
    where n.nspname = ${schema} and l.lanname = 'plpgsql' order by 1`))
  return Object.fromEntries(rows.map(row => [row.name, row.definition.replace(`FUNCTION ${schema}.`, 'FUNCTION ')]))
}

/**
 * The house rule of tests/house/sql-functions.test.ts asked of this run's backend: the functions the
 * migrations leave are, as the server reads them, the sources of db/functions/ applied as they are.
 */
describe('SQL functions kept as source, on this run\'s backend', () => {
  let database: TestDatabase
  let handle: DatabaseHandle
  beforeAll(async () => {
    database = await createTestDatabase()
    handle = openDatabase(database.url, '/nonexistent')
    await handle.migrate()
  })
  afterAll(async () => {
    await handle?.close()
    await database?.drop()
  })

  it('the migrations define each function as its source does', async () => {
    const sources = functionSources(ROOT)
    const applied = await handle.db.transaction(async tx => {
      await tx.execute(sql.raw(`create schema ${SOURCES}`))
      await tx.execute(sql.raw(`set local search_path = ${SOURCES}`))
      for (const source of sources.values()) await tx.execute(sql.raw(source.text))
      const found = await definitions(tx as unknown as Database, SOURCES)
      await tx.execute(sql.raw(`drop schema ${SOURCES} cascade`))
      return found
    })
    expect(Object.keys(applied)).toEqual([...sources.keys()])
    expect(await definitions(handle.db, 'public')).toEqual(applied)
  })

  it('a migration written by npm run db:functions is applied by drizzle\'s migrator', async () => {
    const root = mkdtempSync(join(tmpdir(), 'outbound-functions-'))
    try {
      for (const folder of ['db/functions', 'db/migrations']) cpSync(join(ROOT, folder), join(root, folder), { recursive: true })
      const path = join(root, 'db/functions/messaging_limit_forget_old.sql')
      writeFileSync(path, readFileSync(path, 'utf8').replace('BEGIN\n', 'BEGIN\n\t-- changed by tests/db/function-sources.test.ts\n'))
      expect(generate(root)).toBeDefined()
      const migrationsFolder = join(root, 'db/migrations')
      if (handle.kind === 'postgres') await migratePostgres(handle.db as unknown as PostgresJsDatabase, { migrationsFolder })
      else await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder })
      expect((await definitions(handle.db, 'public')).messaging_limit_forget_old).toContain('-- changed by tests/db/function-sources.test.ts')
      await handle.db.execute(sql`select messaging_limit_forget_old()`)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
