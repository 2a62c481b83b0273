import type { Database } from '../../db/client.js'

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0]

/**
 * What a caller adds to a store's change, in the change's own transaction, given what changed (an
 * audit entry: src/access/audit.ts): both commit or neither does.
 */
export type AlsoInTransaction<T> = (tx: Transaction, changed: T) => Promise<void>

/**
 * Runs `change`, and `also` with its result in the same transaction. Without `also` no transaction
 * is opened; a change that changed nothing (undefined) gets no `also`.
 */
export async function changeWith<T> (db: Database, change: (on: Database) => Promise<T | undefined>, also?: AlsoInTransaction<T>): Promise<T | undefined> {
  if (!also) return await change(db)
  return await db.transaction(async tx => {
    const changed = await change(tx)
    if (changed !== undefined) await also(tx, changed)
    return changed
  })
}
