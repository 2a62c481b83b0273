import { describe, expect, it } from 'vitest'
import { generatePassword, hashPassword, spendVerification, verifyPassword } from '../../src/crypto/password.js'

describe('password hashing (scrypt)', () => {
  it('stores the parameters and a random salt with each hash, and verifies only the right password', async () => {
    const [first, second] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')])
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
    expect(first).not.toBe(second)
    expect(await verifyPassword('correct horse', first)).toBe(true)
    expect(await verifyPassword('correct horse', second)).toBe(true)
    expect(await verifyPassword('correct horsf', first)).toBe(false)
    expect(await verifyPassword('', first)).toBe(false)
  })

  it('verifies hashes made with other parameters, and matches nothing with a malformed or outrageous one', async () => {
    const cheap = 'scrypt$1024$8$1$c2FsdHNhbHRzYWx0c2FsdA$' // completed below with the key for "pw"
    const { scryptSync } = await import('node:crypto')
    const key = scryptSync('pw', Buffer.from('c2FsdHNhbHRzYWx0c2FsdA', 'base64url'), 32, { N: 1024, r: 8, p: 1 }).toString('base64url')
    expect(await verifyPassword('pw', cheap + key)).toBe(true)
    for (const stored of ['', 'plain', 'bcrypt$2b$10$abc', `scrypt$1000$8$1$c2FsdA$${key}`, `scrypt$${2 ** 30}$8$1$c2FsdA$${key}`, `scrypt$1024$8$1$c2FsdA$`]) {
      expect(await verifyPassword('pw', stored), stored).toBe(false)
    }
  })

  it('generates passwords of 144 random bits, and spends a verification for unknown users', async () => {
    const passwords = new Set(Array.from({ length: 50 }, generatePassword))
    expect(passwords.size).toBe(50)
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(await spendVerification('anything')).toBe(false)
  })
})
