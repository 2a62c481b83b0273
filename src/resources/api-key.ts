import type { apiKeys } from '../../db/schema.js'

type ApiKey = typeof apiKeys.$inferSelect

/** What may be shown of a key after its creation: never the secret. */
export function publicKey (key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    phone_number_ids: key.phoneNumberIds,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null
  }
}
