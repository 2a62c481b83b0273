import cluster from 'node:cluster'
import { availableParallelism } from 'node:os'
import { openDatabase } from '../db/client.js'
import { ConfigError, isEmbedded, loadConfig, poolOf } from './config.js'
import { baseUrlOf, beginningsOf, firstContact } from './first-contact.js'

/**
 * `npm run start:cluster`: several gateway processes sharing one port, one PostgreSQL and one Redis.
 * The primary applies migrations once, then forks WORKERS processes (default: one per core) and
 * replaces any that dies. Each worker is the ordinary server (src/server.ts).
 */
async function primary (): Promise<void> {
  const config = loadConfig()
  if (isEmbedded(config) || config.DATABASE_URL === 'memory://') throw new ConfigError('invalid DATABASE_URL: the cluster mode needs PostgreSQL (the embedded database is single-process)')
  if (!config.REDIS_URL) throw new ConfigError('invalid REDIS_URL: the cluster mode needs Redis so that every process shares the rate limits and the pacing')
  const workers = Number(process.env.WORKERS ?? availableParallelism())
  if (!Number.isInteger(workers) || workers < 1) throw new ConfigError(`invalid WORKERS (got ${JSON.stringify(process.env.WORKERS)}): expected a whole number from 1`)

  const database = openDatabase(config.DATABASE_URL, config.DATA_DIR, { pool: poolOf(config, 'cli') })
  await database.migrate()
  const beginnings = await beginningsOf(database.db)
  await database.close()

  let stopping = false
  for (let i = 0; i < workers; i++) cluster.fork()
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    console.error(`outbound cluster: worker ${worker.process.pid} exited (${signal ?? code}); starting another`)
    setTimeout(() => cluster.fork(), 1000)
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stopping = true
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    })
  }
  console.log(`outbound cluster: ${workers} workers on ${config.HOST}:${config.PORT}`)
  console.log(firstContact(config, baseUrlOf(config, null), beginnings))
}

if (cluster.isPrimary) {
  primary().catch((error: unknown) => {
    console.error(`outbound cluster: ${error instanceof ConfigError ? error.message : (error as Error)?.stack ?? String(error)}`)
    process.exit(1)
  })
} else {
  await import('./server.js')
}
