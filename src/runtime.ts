import type { FastifyBaseLogger } from 'fastify'
import { openDatabase, type DatabaseHandle } from '../db/client.js'
import { isEmbedded, poolOf, type Config } from './config.js'
import type { TokenCipher } from './crypto/token-cipher.js'
import { acquireEmbeddedLock } from './embedded-lock.js'
import { createTokenCipher, resolveEncryptionKey } from './local-secrets.js'
import { createStores, type Stores } from './stores.js'

export interface Runtime {
  database: DatabaseHandle
  cipher: TokenCipher
  stores: Stores
  close(): Promise<void>
}

/** Opens the configured database (locked when embedded), applies migrations and builds the stores. */
export async function openRuntime (config: Config, holder: 'server' | 'cli', log?: Pick<FastifyBaseLogger, 'info' | 'warn'>): Promise<Runtime> {
  const { key, generatedAt } = resolveEncryptionKey(config)
  if (generatedAt) log?.info({ path: generatedAt }, 'generated an ENCRYPTION_KEY for the embedded database; back this file up with the data')
  const lock = isEmbedded(config) ? acquireEmbeddedLock(config.DATA_DIR, holder) : undefined
  let database: DatabaseHandle | undefined
  try {
    database = openDatabase(config.DATABASE_URL, config.DATA_DIR, { pool: poolOf(config, holder), warn: line => { log ? log.warn(line) : console.error(line) } })
    await database.migrate()
  } catch (error) {
    await database?.close().catch(() => {})
    lock?.release()
    throw error
  }
  const opened = database
  return {
    database: opened,
    cipher: createTokenCipher(config, key),
    stores: createStores(opened.db),
    async close () {
      try {
        await opened.close()
      } finally {
        lock?.release()
      }
    }
  }
}
