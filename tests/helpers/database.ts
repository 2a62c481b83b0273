import { randomBytes } from 'node:crypto'
import postgres from 'postgres'

export interface TestDatabase {
  /** what DATABASE_URL should be for this test file */
  url: string
  drop(): Promise<void>
}

/**
 * A database of its own for one test file: PGlite in memory by default, or a fresh database on the
 * PostgreSQL server at TEST_DATABASE_URL, dropped afterwards.
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
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop () {
      await admin.unsafe(`drop database if exists ${name} with (force)`)
      await admin.end()
    }
  }
}
