import { sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'

/** The public schema's table names, on either driver (their raw result shapes differ). */
export async function tablesOf (db: Database): Promise<string[]> {
  const result = await db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`) as unknown
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { table_name: string }[]
  return rows.map(row => row.table_name)
}
