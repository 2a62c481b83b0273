import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { apiKeys, workspaces, type Plan } from '../../db/schema.js'
import { generateApiKey, prefixOf, secretMatches } from '../crypto/api-key.js'
import { newId } from './ids.js'
import type { ReadCache } from './read-cache.js'

export type ApiKey = typeof apiKeys.$inferSelect
export interface VerifiedKey { id: string, workspaceId: string, plan: Plan }

// last_used_at is a hint for humans: refreshing it once a minute spares a write on every send.
const LAST_USED_RESOLUTION_MS = 60_000
// One entry per key this process has seen in use: the bound only guards against surprises.
const MAX_TOUCHED = 10_000

interface KeyRow { id: string, workspaceId: string, secretHash: string, revokedAt: Date | null, lastUsedAt: Date | null, plan: Plan }

export function apiKeyStore (db: Database, cache: ReadCache) {
  // When this process last wrote last_used_at, per key id: a cached row still shows the value from before.
  const touchedAt = new Map<string, number>()

  function dueForTouch (row: KeyRow): boolean {
    const last = Math.max(row.lastUsedAt?.getTime() ?? 0, touchedAt.get(row.id) ?? 0)
    if (Date.now() - last < LAST_USED_RESOLUTION_MS) return false
    if (touchedAt.size >= MAX_TOUCHED) touchedAt.clear()
    touchedAt.set(row.id, Date.now())
    return true
  }

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
      await cache.changed()
      return key !== undefined
    },

    /**
     * The key a presented secret belongs to, unless it is unknown or revoked. The row (with its
     * workspace's plan) comes from the read cache, keyed by the prefix and never by the secret, which
     * is compared on every call. Misses are not kept: a new key works at once, and junk takes no memory.
     */
    async verify (secret: string): Promise<VerifiedKey | undefined> {
      const prefix = prefixOf(secret)
      if (!prefix) return undefined
      const row = await cache.read(`key:${prefix}`, async () => await keyByPrefix(db, prefix), found => found !== undefined && found.revokedAt === null)
      if (!row || row.revokedAt || !secretMatches(secret, row.secretHash)) return undefined
      if (dueForTouch(row)) await touch(db, row.id)
      return { id: row.id, workspaceId: row.workspaceId, plan: row.plan }
    }
  }
}

async function keyByPrefix (db: Database, prefix: string): Promise<KeyRow | undefined> {
  const [row] = await db.select({ id: apiKeys.id, workspaceId: apiKeys.workspaceId, secretHash: apiKeys.secretHash, revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt, plan: workspaces.plan })
    .from(apiKeys).innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .where(eq(apiKeys.prefix, prefix))
  return row
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
