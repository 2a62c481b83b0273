import { and, eq, gt, isNull, lte, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { idempotencyKeys, messages, type MessageRecord } from '../../db/schema.js'
import { createBatcher } from './batcher.js'

export interface KeyClaim {
  workspaceId: string
  key: string
  fingerprint: string
  /** the record the key will point to */
  messageId: string
  ttlMs: number
}

export interface StoredAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/** A key and the record it was taken for: answers are written by primary key, and only while the key is still that record's. */
export interface KeyOf { workspaceId: string, key: string, messageId: string }

export interface HeldKey {
  fingerprint: string
  answer: StoredAnswer | undefined
  record: MessageRecord
}

/**
 * The statement that takes the keys of a batch of records about to be created (see keyed-insert.ts,
 * which runs it with the records' insert): it returns the ids of the records whose key was taken. A
 * key held and not expired stays with its holder; one expired but not yet swept is taken over.
 * Within a batch the first claim of a key wins.
 */
export function claimKeys (db: Pick<Database, 'insert'>, claims: KeyClaim[]) {
  const first = new Map<string, KeyClaim>()
  for (const claim of claims) if (!first.has(`${claim.workspaceId}\n${claim.key}`)) first.set(`${claim.workspaceId}\n${claim.key}`, claim)
  // one order for every process, so two batches sharing keys lock them in the same order
  const rows = [...first.values()].sort((a, b) => a.workspaceId.localeCompare(b.workspaceId) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return db.insert(idempotencyKeys).values(rows.map(claim => ({
    workspaceId: claim.workspaceId,
    key: claim.key,
    fingerprint: claim.fingerprint,
    messageId: claim.messageId,
    expiresAt: sql`now() + ${claim.ttlMs}::bigint * interval '1 millisecond'`
  }))).onConflictDoUpdate({
    target: [idempotencyKeys.workspaceId, idempotencyKeys.key],
    set: {
      fingerprint: sql`excluded.fingerprint`,
      messageId: sql`excluded.message_id`,
      responseStatus: null,
      responseHeaders: null,
      responseBody: null,
      createdAt: sql`now()`,
      expiresAt: sql`excluded.expires_at`
    },
    setWhere: lte(idempotencyKeys.expiresAt, sql`now()`)
  }).returning({ messageId: idempotencyKeys.messageId })
}

export function idempotencyKeyStore (db: Database) {
  // the answer is written before it is sent, on every keyed send: shared like the record's own writes
  const saveAnswers = createBatcher(async (batch: Array<{ held: KeyOf, answer: StoredAnswer }>) => {
    const rows = batch.map(({ held, answer }) =>
      sql`(${held.workspaceId}::text, ${held.key}::text, ${held.messageId}::text, ${answer.status}::int, ${JSON.stringify(answer.headers)}::jsonb, ${answer.body}::text)`)
    await db.update(idempotencyKeys)
      .set({ responseStatus: sql`v.status`, responseHeaders: sql`v.headers`, responseBody: sql`v.body` })
      .from(sql`(values ${sql.join(rows, sql`, `)}) as v(workspace_id, key, message_id, status, headers, body)`)
      .where(and(eq(idempotencyKeys.workspaceId, sql`v.workspace_id`), eq(idempotencyKeys.key, sql`v.key`),
        eq(idempotencyKeys.messageId, sql`v.message_id`), isNull(idempotencyKeys.responseStatus)))
    return batch.map(() => undefined)
  }, { maxBatch: 100 })

  return {
    /** The live key and the record it points to; undefined once it expired. */
    async held (workspaceId: string, key: string): Promise<HeldKey | undefined> {
      const [row] = await db.select().from(idempotencyKeys)
        .innerJoin(messages, eq(messages.id, idempotencyKeys.messageId))
        .where(and(eq(idempotencyKeys.workspaceId, workspaceId), eq(idempotencyKeys.key, key), gt(idempotencyKeys.expiresAt, sql`now()`)))
      if (!row) return undefined
      const { responseStatus, responseHeaders, responseBody, fingerprint } = row.idempotency_keys
      const answer = responseStatus === null ? undefined : { status: responseStatus, headers: responseHeaders ?? {}, body: responseBody ?? '' }
      return { fingerprint, answer, record: row.messages }
    },

    /** Keeps the answer of the key that created this record; a first answer is never replaced. */
    async saveAnswer (held: KeyOf, answer: StoredAnswer): Promise<void> {
      await saveAnswers({ held, answer })
    },

    /** The record's answer created nothing the client must keep (queue_full): a retry with the key runs afresh. */
    async release (held: KeyOf): Promise<void> {
      await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.workspaceId, held.workspaceId), eq(idempotencyKeys.key, held.key), eq(idempotencyKeys.messageId, held.messageId)))
    },

    /** Deletes up to `limit` expired keys; answers how many. */
    async sweep (limit = 1000): Promise<number> {
      const rows = await db.delete(idempotencyKeys).where(sql`(workspace_id, key) in (
        select workspace_id, key from idempotency_keys where expires_at <= now() limit ${limit})`).returning({ key: idempotencyKeys.key })
      return rows.length
    }
  }
}

export type IdempotencyKeyStore = ReturnType<typeof idempotencyKeyStore>
