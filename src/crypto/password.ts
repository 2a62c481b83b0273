import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

// N = 2^15, r = 8 costs 32 MiB and tens of milliseconds per guess. The parameters travel with each
// hash, so raising them later leaves existing passwords verifiable.
const COST = { N: 32768, r: 8, p: 1 }
const KEY_LENGTH = 32
const SALT_BYTES = 16

/** `scrypt$N$r$p$<salt base64url>$<key base64url>` */
export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, KEY_LENGTH, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Constant time in the key comparison; a malformed stored hash matches nothing. */
export async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored)
  if (!parsed) return false
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.cost)
  return timingSafeEqual(key, parsed.key)
}

// Verifying against this when the email is unknown makes both refusals take the same time.
let decoy: Promise<string> | undefined

export async function spendVerification (password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  await verifyPassword(password, await decoy)
  return false
}

/** 24 characters of base64url: 144 random bits, shown to the operator once. */
export function generatePassword (): string {
  return randomBytes(18).toString('base64url')
}

function parseHash (stored: string) {
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored)
  if (!match) return undefined
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const key = Buffer.from(match[5], 'base64url')
  // Bounds keep a corrupted row from asking for gigabytes or an endless computation.
  if (N < 2 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16 || key.length < 16 || key.length > 64) return undefined
  return { cost: { N, r, p }, salt: Buffer.from(match[4], 'base64url'), key }
}

async function derive (password: string, salt: Buffer, length: number, cost: { N: number, r: number, p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 }
  return await new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => error ? reject(error) : resolve(key))
  })
}
