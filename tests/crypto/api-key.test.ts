import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { apiKeys } from '../../db/schema.js'
import { API_KEY_PREFIX, generateApiKey, prefixOf } from '../../src/crypto/api-key.js'
import { useTestRuntime } from '../helpers/runtime.js'

describe('API key secrets', () => {
  it('carry the recognisable prefix and at least 128 random bits', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => generateApiKey().secret))
    expect(secrets.size).toBe(1000)
    for (const secret of secrets) {
      expect(secret.startsWith(API_KEY_PREFIX)).toBe(true)
      const random = secret.slice(API_KEY_PREFIX.length + 11)
      expect(Buffer.from(random, 'base64url').length * 8).toBeGreaterThanOrEqual(128)
      expect(prefixOf(secret)).toBe(secret.slice(0, API_KEY_PREFIX.length + 10))
    }
  })

  it('refuse anything that is not shaped like one of ours', () => {
    for (const bad of ['', 'Bearer x', `${API_KEY_PREFIX}short_abc`, 'sk_live_' + 'a'.repeat(54)]) expect(prefixOf(bad)).toBeUndefined()
  })
})

describe('the api_keys table', () => {
  const runtime = useTestRuntime()

  it('stores only a hash of the secret, and verifies, then refuses once revoked', async () => {
    const { stores, database: { db } } = runtime.current
    const workspace = await stores.workspaces.create('acme', 'scale')
    const { key, secret } = await stores.keys.create(workspace.id, 'ci')
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id))
    expect(JSON.stringify(row)).not.toContain(secret)
    expect(JSON.stringify(row)).not.toContain(secret.slice(API_KEY_PREFIX.length + 11))
    expect(row.secretHash).toBe(createHash('sha256').update(secret).digest('hex'))

    expect(await stores.keys.verify(secret)).toMatchObject({ id: key.id, workspaceId: workspace.id, plan: 'scale' })
    expect(await stores.keys.verify(secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A'))).toBeUndefined()
    expect(await stores.keys.revoke(key.id)).toBe(true)
    expect(await stores.keys.verify(secret)).toBeUndefined()
  })
})
