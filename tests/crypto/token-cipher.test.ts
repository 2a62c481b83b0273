import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { connections } from '../../db/schema.js'
import { TokenCipher } from '../../src/crypto/token-cipher.js'
import { useTestRuntime } from '../helpers/runtime.js'

const TOKEN = 'EAAGm0PX4ZCpsBA-a-very-secret-upstream-token'

describe('access tokens at rest', () => {
  it('round-trips and never repeats a ciphertext', () => {
    const cipher = new TokenCipher(randomBytes(32))
    const first = cipher.encrypt(TOKEN)
    expect(first).not.toBe(cipher.encrypt(TOKEN))
    expect(cipher.decrypt(first)).toBe(TOKEN)
  })

  it('decrypts only with the right key', () => {
    const stored = new TokenCipher(randomBytes(32)).encrypt(TOKEN)
    expect(() => new TokenCipher(randomBytes(32)).decrypt(stored)).toThrow(/key id/)
  })

  it('refuses a tampered ciphertext', () => {
    const cipher = new TokenCipher(randomBytes(32))
    const parts = cipher.encrypt(TOKEN).split(':')
    const body = Buffer.from(parts[3], 'base64')
    body[0] ^= 1
    parts[3] = body.toString('base64')
    expect(() => cipher.decrypt(parts.join(':'))).toThrow()
  })

  it('keeps decrypting rows written under a previous key after rotation', () => {
    const oldKey = randomBytes(32)
    const stored = new TokenCipher(oldKey).encrypt(TOKEN)
    const rotated = new TokenCipher(randomBytes(32), [oldKey])
    expect(rotated.decrypt(stored)).toBe(TOKEN)
    expect(rotated.isStale(stored)).toBe(true)
    expect(rotated.isStale(rotated.encrypt(TOKEN))).toBe(false)
  })
})

describe('a stored connection', () => {
  const runtime = useTestRuntime()

  it('holds no plaintext token in the database', async () => {
    const { stores, cipher, database: { db } } = runtime.current
    const workspace = await stores.workspaces.create('acme', 'growth')
    await stores.connections.replace(workspace.id, 'waba-1', cipher.encrypt(TOKEN), [{ id: 'pn-1', display_phone_number: '+1 555 0100' }])
    const [row] = await db.select().from(connections).where(eq(connections.workspaceId, workspace.id))
    expect(JSON.stringify(row)).not.toContain(TOKEN)
    expect(JSON.stringify(row)).not.toContain(Buffer.from(TOKEN).toString('base64'))
    expect(cipher.decrypt(row.accessToken)).toBe(TOKEN)
  })
})
