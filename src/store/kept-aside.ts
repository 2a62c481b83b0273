import { desc, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { webhookKeptAside } from '../../db/schema.js'
import { newId } from './ids.js'
import type { Executor } from '../../db/client.js'

export type KeptAsideRow = typeof webhookKeptAside.$inferSelect

/** A part of a delivery that could not be applied, or that names nothing to apply to: see db/schema.ts webhookKeptAside. */
export interface KeptAside {
  jobId: number
  kind: KeptAsideRow['kind']
  reason: string
  field?: string
  routeId?: string
  codes?: string
  /** the part as received: stored as escaped JSON, so any value fits a text column */
  event: unknown
}

/** All of a batch's parts kept aside, in one statement. */
export async function keepAside (tx: Executor, parts: KeptAside[]): Promise<void> {
  if (parts.length === 0) return
  // JSON.stringify escapes NUL and lone surrogates (\u0000, \ud800): what it writes, text accepts
  const rows = parts.map(part => ({ id: newId('kept'), job_id: part.jobId, kind: part.kind, reason: part.reason, field: part.field ?? null, route_id: part.routeId ?? null, codes: part.codes ?? null, event: JSON.stringify(part.event) ?? 'null' }))
  await tx.execute(sql`
    insert into webhook_kept_aside (id, job_id, kind, reason, field, route_id, codes, event)
    select id, job_id, kind, reason, field, route_id, codes, event
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(id text, job_id bigint, kind text, reason text, field text, route_id text, codes text, event text)`)
}

export function keptAsideStore (db: Database) {
  return {
    /** Newest first. */
    async list (options: { limit?: number } = {}): Promise<KeptAsideRow[]> {
      return await db.select().from(webhookKeptAside).orderBy(desc(webhookKeptAside.createdAt), desc(webhookKeptAside.id)).limit(options.limit ?? 50)
    }
  }
}

export type KeptAsideStore = ReturnType<typeof keptAsideStore>
