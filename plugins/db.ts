import fp from 'fastify-plugin'
import type { DatabaseHandle } from '../db/client.js'
import type { Config } from '../src/config.js'
import type { TokenCipher } from '../src/crypto/token-cipher.js'
import { openRuntime, type Runtime } from '../src/runtime.js'
import { CACHE_CHANNEL } from '../src/store/read-cache.js'
import type { Stores } from '../src/stores.js'

declare module 'fastify' {
  interface FastifyInstance extends Stores {
    config: Config
    database: DatabaseHandle
    cipher: TokenCipher
  }
}

/**
 * Opens the database (or takes the one being opened), migrates it, and decorates the app with it and its repositories. Their read
 * cache is dropped whenever another process (the CLI, another server) notifies a change.
 */
export default fp(async function db (app, options: { config: Config, runtime?: Promise<Runtime> }) {
  const runtime = await (options.runtime ?? openRuntime(options.config, 'server', app.log))
  const unlisten = await runtime.database.onNotify(CACHE_CHANNEL, runtime.stores.readCache.clear).catch(async (error: unknown) => {
    await runtime.close()
    throw error
  })
  app.decorate('config', options.config)
  app.decorate('database', runtime.database)
  app.decorate('cipher', runtime.cipher)
  for (const name of Object.keys(runtime.stores) as (keyof Stores)[]) app.decorate(name, runtime.stores[name] as never)
  app.addHook('onClose', async () => {
    // the database may be gone already (closed, unreachable): there is nothing left to stop listening to
    await unlisten().catch(() => {})
    await runtime.close()
  })
}, { name: 'db' })
