import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { settings } from '../../db/schema.js'

/** A value generated once and shared by every process on this database (the first writer wins). */
export async function sharedSecret (db: Database, key: string, make = () => randomBytes(24).toString('base64url')): Promise<string> {
  await db.insert(settings).values({ key, value: make() }).onConflictDoNothing()
  const [row] = await db.select().from(settings).where(eq(settings.key, key))
  return row.value
}
