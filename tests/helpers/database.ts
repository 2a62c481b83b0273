import { randomBytes } from 'node:crypto'
import postgres from 'postgres'

export interface TestDatabase {
  /** what DATABASE_URL should be for this test file */
  url: string
  drop(): Promise<void>
}

/**
 * A database of its own for one test file: PGlite in memory by default, or a fresh database on the
 * PostgreSQL server at TEST_DATABASE_URL, dropped afterwards. With TEST_PGBOUNCER_URL too (a PgBouncer
 * in transaction mode in front of that server: scripts/pgbouncer.sh), the gateway reaches it
 * through the pooler, with DATABASE_POOL_MODE=transaction (poolEnv).
 */
export async function createTestDatabase (): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) return { url: 'memory://', drop: async () => {} }
  return await createPostgresDatabase(serverUrl)
}

export async function createPostgresDatabase (serverUrl: string): Promise<TestDatabase> {
  const name = `outbound_test_${randomBytes(6).toString('hex')}`
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database ${name}`)
  const url = new URL(process.env.TEST_PGBOUNCER_URL ?? serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop () {
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.end()
    }
  }
}

/** The pool settings of a gateway on the test database: transaction mode when the run goes through PgBouncer. */
export function poolEnv (): Record<string, string> {
  return process.env.TEST_PGBOUNCER_URL && process.env.TEST_DATABASE_URL ? { DATABASE_POOL_MODE: 'transaction' } : {}
}
