import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'

/** The public schema's table names. */
export async function tablesOf (db: Database): Promise<string[]> {
  const result = await db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`)
  return rowsOf<{ table_name: string }>(result).map(row => row.table_name)
}
