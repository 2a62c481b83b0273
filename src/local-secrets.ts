import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, type Config } from './config.js'
import { TokenCipher } from './crypto/token-cipher.js'

export interface ResolvedKey { key: Buffer, generatedAt?: string }

/**
 * ENCRYPTION_KEY when given. Otherwise the embedded default keeps a generated key beside its data
 * (mode 0600), and an in-memory database gets a throwaway key that dies with it. PostgreSQL
 * without a key is refused: a key generated on one host would not decrypt on the next.
 */
export function resolveEncryptionKey (config: Config): ResolvedKey {
  if (config.ENCRYPTION_KEY) return { key: Buffer.from(config.ENCRYPTION_KEY, 'base64') }
  if (config.DATABASE_URL === 'memory://') return { key: randomBytes(32) }
  if (config.DATABASE_URL) throw new ConfigError('invalid ENCRYPTION_KEY: required with DATABASE_URL (32 random bytes, base64: `openssl rand -base64 32`)')
  mkdirSync(config.DATA_DIR, { recursive: true })
  const path = join(config.DATA_DIR, 'encryption.key')
  if (existsSync(path)) return { key: Buffer.from(readFileSync(path, 'utf8').trim(), 'base64') }
  writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' })
  return { key: Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'), generatedAt: path }
}

export function createTokenCipher (config: Config, key: Buffer): TokenCipher {
  const previous = config.ENCRYPTION_KEY_PREVIOUS?.split(',').map(value => Buffer.from(value, 'base64')) ?? []
  return new TokenCipher(key, previous)
}
