import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { withPreparedStatements } from '../../db/prepared.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'

// drizzle asks postgres.js not to prepare its statements; the wrapper makes them prepared, on one
// connection here so that pg_prepared_statements shows what that connection keeps.
describe.runIf(process.env.TEST_DATABASE_URL)('prepared statements (PostgreSQL)', () => {
  let database: TestDatabase
  let client: postgres.Sql
  let db: ReturnType<typeof drizzle>

  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!)
    client = postgres(database.url, { max: 1, onnotice: () => {} })
    db = drizzle(withPreparedStatements(client))
  })
  afterAll(async () => {
    await client.end()
    await database.drop()
  })

  async function kept (marker: string): Promise<number> {
    const rows = rowsOf<{ count: number }>(await db.execute(sql`select count(*)::int as count from pg_prepared_statements where statement like ${`%${marker}%`} and statement not like '%pg_prepared_statements%'`))
    return rows[0].count
  }

  it('prepares a statement with parameters once, in autocommit and in a transaction alike', async () => {
    for (let run = 0; run < 3; run++) {
      expect(rowsOf(await db.execute(sql`select ${run}::int as n /* marker_one */`))).toEqual([{ n: run }])
    }
    await db.transaction(async tx => {
      expect(rowsOf(await tx.execute(sql`select ${7}::int as n /* marker_one */`))).toEqual([{ n: 7 }])
      await tx.execute(sql`select ${8}::int as n /* marker_tx */`)
    })
    expect(await kept('marker_one')).toBe(1)
    expect(await kept('marker_tx')).toBe(1)
  })

  it('leaves a statement with more than 16 parameters unprepared (its text varies with a list)', async () => {
    const ids = Array.from({ length: 17 }, (_, index) => index)
    const rows = rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from (values ${sql.join(ids.map(id => sql`(${id}::int)`), sql`, `)}) v /* marker_long */`))
    expect(rows).toEqual([{ n: 17 }])
    expect(await kept('marker_long')).toBe(0)
  })
})
