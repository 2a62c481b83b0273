import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'
import { startServer, type RunningServer } from '../helpers/server.js'

/** Where a CLI suite runs: the environment every command gets, and what to tear down. */
export interface CliBackend {
  kind: 'pglite' | 'postgres'
  env: Record<string, string>
  /** the server running on the same database while the commands run, when the backend allows one */
  server?: RunningServer
  close(): Promise<void>
}

/** Embedded PGlite in a fresh DATA_DIR: whatever TEST_DATABASE_URL says, since it is the default install. */
export async function embeddedBackend (): Promise<CliBackend> {
  const dataDir = await mkdtemp(join(tmpdir(), 'outbound-cli-'))
  return {
    kind: 'pglite',
    env: { DATA_DIR: dataDir },
    async close () { await rm(dataDir, { recursive: true, force: true }) }
  }
}

/** A fresh database on TEST_DATABASE_URL, with the real server running on it the whole time. */
export async function postgresBackend (serverUrl: string): Promise<CliBackend> {
  const database: TestDatabase = await createPostgresDatabase(serverUrl)
  const dataDir = await mkdtemp(join(tmpdir(), 'outbound-cli-pg-'))
  const env = { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DATA_DIR: dataDir }
  const server = await startServer(env).catch(async (error: unknown) => {
    await database.drop()
    throw error
  })
  return {
    kind: 'postgres',
    env,
    server,
    async close () {
      await server.stop()
      await database.drop()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}
