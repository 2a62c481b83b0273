import { afterAll, beforeAll } from 'vitest'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { createTestDatabase, type TestDatabase } from './database.js'
import { testConfig } from './config.js'

/** A runtime (database, cipher, stores) on a fresh test database for the enclosing describe; read `.current` inside tests. */
export function useTestRuntime (): { current: Runtime } {
  const holder = {} as { current: Runtime }
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase()
    holder.current = await openRuntime(testConfig({ DATABASE_URL: database.url }), 'cli')
  })
  afterAll(async () => {
    await holder.current?.close()
    await database?.drop()
  })
  return holder
}
