import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { apiKeys, SCOPES, workspaces, type Plan, type Scope } from '../../db/schema.js'
import { generateApiKey, prefixOf, secretMatches } from '../crypto/api-key.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { newId } from './ids.js'
import { keyTouches } from './key-touches.js'
import type { ReadCache } from './read-cache.js'

export type ApiKey = typeof apiKeys.$inferSelect
/** A presented key: what the request may do comes with its cached row, at no extra query. */
export interface VerifiedKey { id: string, workspaceId: string, plan: Plan, scopes: readonly Scope[], phoneNumberIds: readonly string[] | null }

/** What a new key may do; omitted: every scope, any number. */
export interface KeyGrant { scopes?: readonly Scope[], phoneNumberIds?: readonly string[] | null }

type KeyRow = Omit<VerifiedKey, 'id'> & { id: string, secretHash: string, revokedAt: Date | null, lastUsedAt: Date | null }

export function apiKeyStore (db: Database, cache: ReadCache) {
  const touches = keyTouches(db)

  return {
    async create (workspaceId: string, name: string, grant: KeyGrant = {}, also?: AlsoInTransaction<ApiKey>): Promise<{ key: ApiKey, secret: string }> {
      const { prefix, secret, secretHash } = generateApiKey()
      const values = { id: newId('key'), workspaceId, name, prefix, secretHash, scopes: [...grant.scopes ?? SCOPES], phoneNumberIds: grant.phoneNumberIds ? [...grant.phoneNumberIds] : null }
      const key = await changeWith(db, async on => (await on.insert(apiKeys).values(values).returning())[0], also)
      return { key: key!, secret }
    },

    async list (workspaceId: string): Promise<ApiKey[]> {
      return await db.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).orderBy(desc(apiKeys.createdAt))
    },

    async get (id: string): Promise<ApiKey | undefined> {
      const [key] = await db.select().from(apiKeys).where(eq(apiKeys.id, id))
      return key
    },

    /** Revokes the key; false when no such key exists. Revoking twice is harmless, and `also` runs only the first time. */
    async revoke (id: string, also?: AlsoInTransaction<ApiKey>): Promise<boolean> {
      const revoked = await changeWith(db, async on => (await on.update(apiKeys).set({ revokedAt: sql`now()` })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning())[0], also)
      await cache.changed()
      return revoked !== undefined || (await this.get(id)) !== undefined
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
      touches.touch(row.id, row.lastUsedAt)
      return { id: row.id, workspaceId: row.workspaceId, plan: row.plan, scopes: row.scopes, phoneNumberIds: row.phoneNumberIds }
    }
  }
}

async function keyByPrefix (db: Database, prefix: string): Promise<KeyRow | undefined> {
  const [row] = await db.select({
    id: apiKeys.id,
    workspaceId: apiKeys.workspaceId,
    secretHash: apiKeys.secretHash,
    revokedAt: apiKeys.revokedAt,
    lastUsedAt: apiKeys.lastUsedAt,
    scopes: apiKeys.scopes,
    phoneNumberIds: apiKeys.phoneNumberIds,
    plan: workspaces.plan
  }).from(apiKeys).innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId)).where(eq(apiKeys.prefix, prefix))
  return row
}

export type ApiKeyStore = ReturnType<typeof apiKeyStore>
