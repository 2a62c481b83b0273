import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { EmbeddedDatabaseBusyError } from './embedded-lock.js'

/** The only place that listens: `npm start`. Closes gracefully on SIGINT/SIGTERM. */
async function main (): Promise<void> {
  const config = loadConfig()
  const app = await buildApp({ config })
  if (!config.APP_SECRET) app.log.warn('APP_SECRET is not set: every webhook POST will be refused until it is')
  await app.listen({ port: config.PORT, host: config.HOST })

  let closing = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down')
      const forced = setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS + 5000).unref()
      app.close().then(() => { clearTimeout(forced); process.exit(0) }, () => process.exit(1))
    })
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof EmbeddedDatabaseBusyError
  console.error(`outbound: ${known ? (error as Error).message : (error as Error)?.stack ?? String(error)}`)
  process.exit(1)
})
