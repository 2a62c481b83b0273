import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { openDatabase, openPglite, rowsOf } from '../../db/client.js'
import { openEmbedded } from '../../db/embedded.js'
import { loadConfig } from '../../src/config.js'
import { EmbeddedDatabaseBusyError } from '../../src/embedded-lock.js'
import { openRuntime } from '../../src/runtime.js'
import { createTestDatabase } from '../helpers/database.js'
import { tablesOf } from '../helpers/tables.js'

const EXPECTED_TABLES = ['api_keys', 'connections', 'dispatchers', 'idempotency_keys', 'inbound_messages', 'job_groups', 'jobs', 'message_events', 'messages', 'phone_numbers', 'sessions', 'settings', 'templates', 'users', 'webhook_deliveries', 'webhook_endpoints', 'webhook_kept_aside', 'workspaces']

describe('migrations', () => {
  it('apply on an empty database of this run\'s backend, twice without harm', async () => {
    const database = await createTestDatabase()
    // an in-memory database starts from the build's migrated template: this one starts empty
    const handle = database.url === 'memory://' ? openPglite(openEmbedded(undefined, { fromTemplate: false }), 'memory') : openDatabase(database.url, '/nonexistent')
    try {
      await handle.migrate()
      await handle.migrate()
      expect(await tablesOf(handle.db)).toEqual(expect.arrayContaining(EXPECTED_TABLES))
    } finally {
      await handle.close()
      await database.drop()
    }
  })

  it('are already applied to an in-memory database, which loads the build\'s migrated template', async () => {
    const handle = openDatabase('memory://', '/nonexistent')
    try {
      const applied = await handle.db.execute(sql`select count(*)::int as count from drizzle.__drizzle_migrations`)
      expect(rowsOf<{ count: number }>(applied)[0].count).toBeGreaterThan(0)
      expect(await tablesOf(handle.db)).toEqual(expect.arrayContaining(EXPECTED_TABLES))
    } finally {
      await handle.close()
    }
  })

  it('apply on the embedded on-disk default, which generates its key with mode 0600 and locks the directory', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'outbound-embedded-'))
    try {
      const config = loadConfig({ DATA_DIR: dataDir })
      const runtime = await openRuntime(config, 'server')
      expect(await tablesOf(runtime.database.db)).toEqual(expect.arrayContaining(EXPECTED_TABLES))
      expect((await stat(join(dataDir, 'encryption.key'))).mode & 0o777).toBe(0o600)
      await expect(openRuntime(config, 'cli')).rejects.toThrow(EmbeddedDatabaseBusyError)
      await runtime.close()
      const again = await openRuntime(config, 'cli')
      await again.close()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
