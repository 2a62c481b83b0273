import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { apiKeys, workspaces, type Plan } from '../../db/schema.js'
import { generateApiKey, prefixOf, secretMatches } from '../crypto/api-key.js'
import { newId } from './ids.js'

export type ApiKey = typeof apiKeys.$inferSelect
export interface VerifiedKey { id: string, workspaceId: string, plan: Plan }

// last_used_at is a hint for humans: refreshing it once a minute spares a write on every send.
const LAST_USED_RESOLUTION_MS = 60_000

export function apiKeyStore (db: Database) {
  return {
    async create (workspaceId: string, name: string): Promise<{ key: ApiKey, secret: string }> {
      const { prefix, secret, secretHash } = generateApiKey()
      const [key] = await db.insert(apiKeys).values({ id: newId('key'), workspaceId, name, prefix, secretHash }).returning()
      return { key, secret }
    },

    async list (workspaceId: string): Promise<ApiKey[]> {
      return await db.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).orderBy(desc(apiKeys.createdAt))
    },

    async get (id: string): Promise<ApiKey | undefined> {
      const [key] = await db.select().from(apiKeys).where(eq(apiKeys.id, id))
      return key
    },

    /** Revokes the key; false when no such key exists. Revoking twice is harmless. */
    async revoke (id: string): Promise<boolean> {
      const [key] = await db.update(apiKeys).set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
        .where(eq(apiKeys.id, id)).returning({ id: apiKeys.id })
      return key !== undefined
    },

    /** The key a presented secret belongs to, unless it is unknown or revoked. Read from the database every time, so a revocation counts at once. */
    async verify (secret: string): Promise<VerifiedKey | undefined> {
      const prefix = prefixOf(secret)
      if (!prefix) return undefined
      const [row] = await db.select({ id: apiKeys.id, workspaceId: apiKeys.workspaceId, secretHash: apiKeys.secretHash, revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt, plan: workspaces.plan })
        .from(apiKeys).innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
        .where(eq(apiKeys.prefix, prefix))
      if (!row || row.revokedAt || !secretMatches(secret, row.secretHash)) return undefined
      if (lastUseIsStale(row.lastUsedAt)) await touch(db, row.id)
      return { id: row.id, workspaceId: row.workspaceId, plan: row.plan }
    }
  }
}

// Decided on the row already read, so most sends skip the write altogether.
function lastUseIsStale (lastUsedAt: Date | null): boolean {
  return lastUsedAt === null || Date.now() - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS
}

async function touch (db: Database, id: string): Promise<void> {
  const now = new Date()
  await db.update(apiKeys).set({ lastUsedAt: now }).where(and(eq(apiKeys.id, id),
    or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)))))
}

export type ApiKeyStore = ReturnType<typeof apiKeyStore>

/** What may be shown of a key after its creation: never the secret. */
export function publicKey (key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null
  }
}
