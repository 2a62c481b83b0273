import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { rowsOf } from '../../db/client.js'
import { tablesOf } from '../helpers/tables.js'

/**
 * A logical dump of the whole database as CONTRACT.md 17's proof reads it: every table's rows as
 * JSON (bytea as hex), and on PostgreSQL pg_dump's own output when pg_dump is on the machine.
 */
export async function dumpDatabase (app: FastifyInstance): Promise<string> {
  const { db } = app.database
  const parts: string[] = []
  for (const table of await tablesOf(db)) {
    const rows = rowsOf<{ j: string }>(await db.execute(sql.raw(`select row_to_json(t)::text as j from "${table}" t`)))
    parts.push(`-- ${table}\n${rows.map(row => row.j).join('\n')}`)
  }
  const url = app.config.DATABASE_URL
  if (url?.startsWith('postgres') && hasPgDump()) parts.push(execFileSync('pg_dump', ['--data-only', url], { encoding: 'utf8', maxBuffer: 1 << 28 }))
  return parts.join('\n')
}

function hasPgDump (): boolean {
  try { execFileSync('pg_dump', ['--version']); return true } catch { return false }
}

/** Every file under the media directory, its bytes as text (binary safe enough for a marker search) and its name. */
export function dumpFiles (dir: string): string {
  if (!existsSync(dir)) return ''
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    out.push(statSync(path).isDirectory() ? dumpFiles(path) : `${name}\n${readFileSync(path, 'latin1')}`)
  }
  return out.join('\n')
}

/** A value in the forms a dump could hold it: plain, JSON-escaped, base64 and hex. */
export function formsOf (value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  return [value, JSON.stringify(value).slice(1, -1), JSON.stringify(JSON.stringify(value)).slice(1, -1), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('hex')]
}

/** The forms of `value` found in `text`. */
export function found (text: string, value: string): string[] {
  const lower = text.toLowerCase()
  return formsOf(value).filter(form => text.includes(form) || (/^[0-9a-f]+$/.test(form) && lower.includes(form)))
}
