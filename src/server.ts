import cluster from 'node:cluster'
import { buildApp } from './app.js'
import { ConfigError, loadConfig, shutdownGraceMs } from './config.js'
import { EmbeddedDatabaseBusyError } from './embedded-lock.js'
import { baseUrlOf, beginningsOf, firstContact } from './first-contact.js'

/**
 * The only place that listens: `npm start` (whose script `exec`s node, so the signal reaches this
 * process and not only npm's shell). On SIGINT/SIGTERM it stops accepting at once, lets the sends in
 * flight finish within the grace (by default the longest a send can take), writes their outcomes,
 * releases its leases, marks what could not finish as interrupted, then exits 0 (CONTRACT.md 12).
 */
async function main (): Promise<void> {
  const config = loadConfig()
  const app = await buildApp({ config })
  if (!config.APP_SECRET) app.log.warn('APP_SECRET is not set: every webhook POST will be refused until it is')
  await app.listen({ port: config.PORT, host: config.HOST })
  // once per start, for a person reading the terminal (a database that does not answer now: the URLs
  // alone); a cluster's workers leave it to their primary
  if (cluster.isPrimary) console.log(firstContact(config, baseUrlOf(config, app.server.address()), await beginningsOf(app.database.db).catch(() => ({ firstWorkspaceId: undefined, users: 1 }))))

  let closing = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      const graceMs = shutdownGraceMs(config)
      app.log.info({ signal, graceMs }, 'shutting down: no new connections; sends in flight may finish')
      const forced = setTimeout(() => process.exit(1), graceMs + 5000).unref()
      // Stop accepting at once: the close below first waits for the dispatches in flight (plugins/dispatch.ts).
      app.server.close()
      // Past the grace nothing is left to answer; a connection that never sent a request would hold the close.
      setTimeout(() => app.server.closeAllConnections(), graceMs + 2500).unref()
      app.close().then(() => { clearTimeout(forced); process.exit(0) }, () => process.exit(1))
    })
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof EmbeddedDatabaseBusyError
  console.error(`outbound: ${known ? (error as Error).message : (error as Error)?.stack ?? String(error)}`)
  process.exit(1)
})
