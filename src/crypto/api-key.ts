import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Every secret starts with this, so secret scanners can recognise a leaked Outbound key. */
export const API_KEY_PREFIX = 'obk_live_'
const SECRET_PATTERN = /^obk_live_([A-Za-z0-9]{10})_([A-Za-z0-9_-]{43})$/

export interface NewApiKey { prefix: string, secret: string, secretHash: string }

/** A lookup id (visible, stored) and 256 random bits (never stored, only hashed). */
export function generateApiKey (): NewApiKey {
  const lookup = randomBytes(16).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 10).padEnd(10, '0')
  const secret = `${API_KEY_PREFIX}${lookup}_${randomBytes(32).toString('base64url')}`
  return { prefix: `${API_KEY_PREFIX}${lookup}`, secret, secretHash: hashSecret(secret) }
}

/** The stored prefix of a presented secret, or undefined when it cannot be one of ours. */
export function prefixOf (secret: string): string | undefined {
  const match = SECRET_PATTERN.exec(secret)
  return match ? `${API_KEY_PREFIX}${match[1]}` : undefined
}

// The secret carries 256 random bits, so a fast hash is enough: there is nothing to brute-force.
export function hashSecret (secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

export function secretMatches (secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex')
  const stored = Buffer.from(storedHash, 'hex')
  return presented.length === stored.length && timingSafeEqual(presented, stored)
}
