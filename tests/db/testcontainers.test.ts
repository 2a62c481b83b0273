import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../db/client.js'
import { tablesOf } from '../helpers/tables.js'

function dockerAnswers (): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 })
    return true
  } catch {
    return false
  }
}

const docker = dockerAnswers()
if (!docker) console.log('[outbound tests] testcontainers: no Docker runtime answers here; the PostgreSQL container backend is skipped')

// The third backend: a throwaway PostgreSQL in a container, where a Docker runtime exists.
describe.skipIf(!docker)('PostgreSQL in a testcontainer', () => {
  it('takes the migrations and a round trip', async () => {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
    const container = await new PostgreSqlContainer('postgres:16-alpine').start()
    const handle = openDatabase(container.getConnectionUri(), '/nonexistent')
    try {
      await handle.migrate()
      expect(await tablesOf(handle.db)).toContain('messages')
    } finally {
      await handle.close()
      await container.stop()
    }
  }, 180_000)
})
