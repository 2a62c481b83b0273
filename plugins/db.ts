import fp from 'fastify-plugin'
import type { DatabaseHandle } from '../db/client.js'
import type { Config } from '../src/config.js'
import type { TokenCipher } from '../src/crypto/token-cipher.js'
import { openRuntime } from '../src/runtime.js'
import type { Stores } from '../src/stores.js'

declare module 'fastify' {
  interface FastifyInstance extends Stores {
    config: Config
    database: DatabaseHandle
    cipher: TokenCipher
  }
}

/** Opens the database, migrates it, and decorates the app with it and its repositories. */
export default fp(async function db (app, options: { config: Config }) {
  const runtime = await openRuntime(options.config, 'server', app.log)
  app.decorate('config', options.config)
  app.decorate('database', runtime.database)
  app.decorate('cipher', runtime.cipher)
  for (const name of Object.keys(runtime.stores) as (keyof Stores)[]) app.decorate(name, runtime.stores[name] as never)
  app.addHook('onClose', async () => { await runtime.close() })
}, { name: 'db' })
