import { getTableColumns, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { messages, type MessageRecord } from '../../db/schema.js'
import { claimKeys } from './idempotency-keys.js'

/** A send's record before it is written (messages.ts and queued-sends.ts write it). */
export type PendingMessage = Pick<typeof messages.$inferInsert, 'id' | 'workspaceId' | 'apiKeyId' | 'phoneNumberId' | 'recipient' | 'type' | 'payload' | 'dispatcherId' | 'clientReference'> & { id: string }
/** An Idempotency-Key to take with the record (CONTRACT.md 8). */
export interface KeyToTake { key: string, fingerprint: string, ttlMs: number }

const COLUMNS = Object.entries(getTableColumns(messages))

/**
 * A batch of pending records, some with an Idempotency-Key, in one statement (so one commit, one
 * round trip): the keys first (`taken`), then every record that has no key or whose key it took.
 * A record whose key another record holds is not written. Answers the written records by id.
 */
export async function insertWithKeys (db: Pick<Database, 'execute' | 'insert'>, batch: Array<PendingMessage & { take?: KeyToTake }>, status: 'pending' | 'queued' = 'pending'): Promise<Map<string, MessageRecord>> {
  const claims = batch.filter(message => message.take).map(message => ({ workspaceId: message.workspaceId, messageId: message.id, ...message.take! }))
  const taken = claims.length > 0 ? claimKeys(db, claims).getSQL() : sql`select null::text as message_id where false`
  const values = batch.map(message => sql`(${message.id}::text, ${message.workspaceId}::text, ${message.apiKeyId ?? null}::text,
    ${message.phoneNumberId}::text, ${message.recipient}::text, ${message.type}::text, ${JSON.stringify(message.payload)}::jsonb,
    ${message.dispatcherId ?? null}::text, ${message.clientReference ?? null}::text, ${message.take?.key ?? null}::text)`)
  const result = await db.execute(sql`with taken as (${taken})
    insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, dispatcher_id, client_reference, idempotency_key, status, queued_at)
    select v.*, ${status}::text, case when ${status}::text = 'queued' then now() end from (values ${sql.join(values, sql`, `)})
      as v(id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, dispatcher_id, client_reference, idempotency_key)
    where v.idempotency_key is null or v.id in (select message_id from taken)
    returning *`)
  return new Map(rowsOf<Record<string, unknown>>(result).map(row => [row.id as string, asRecord(row)]))
}

/** A raw `messages` row (snake_case, as `returning *` gives it) as drizzle would have mapped it. */
export function asRecord (row: Record<string, unknown>): MessageRecord {
  return Object.fromEntries(COLUMNS.map(([field, column]) => {
    const value = row[column.name]
    return [field, value === null || value === undefined ? null : column.mapFromDriverValue(value)]
  })) as MessageRecord
}
