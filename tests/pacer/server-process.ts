import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.js'
import { openRuntime } from '../../src/runtime.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { createPostgresDatabase } from '../helpers/database.js'

/** Where a spawned server keeps its data: embedded PGlite in a temporary DATA_DIR, or a fresh PostgreSQL database. */
export interface ServerStore {
  kind: 'embedded' | 'postgres'
  env: Record<string, string>
  close (): Promise<void>
}

export async function embeddedStore (): Promise<ServerStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'outbound-pacer-'))
  return { kind: 'embedded', env: { DATA_DIR: dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }, close: async () => { await rm(dataDir, { recursive: true, force: true }) } }
}

export async function postgresStore (serverUrl: string): Promise<ServerStore> {
  const database = await createPostgresDatabase(serverUrl)
  const dataDir = await mkdtemp(join(tmpdir(), 'outbound-pacer-pg-'))
  return {
    kind: 'postgres',
    env: { DATABASE_URL: database.url, DATA_DIR: dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY },
    async close () {
      await database.drop()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}

/** Opens the store as the CLI would (so never beside a running embedded server) and runs `work` on it. */
export async function withRuntime<T> (store: ServerStore, work: (runtime: Awaited<ReturnType<typeof openRuntime>>) => Promise<T>): Promise<T> {
  const runtime = await openRuntime(loadConfig({ LOG_LEVEL: 'silent', ...store.env }), 'cli')
  try {
    return await work(runtime)
  } finally {
    await runtime.close()
  }
}

/** A Growth workspace connected to the emulator's default WABA (first number only), and an API key's header. */
export async function seedWorkspace (store: ServerStore): Promise<{ workspaceId: string, authorization: string }> {
  return await withRuntime(store, async ({ stores, cipher }) => {
    const account = defaultAccount()
    const workspace = await stores.workspaces.create('durability', 'growth')
    const [number] = account.phoneNumbers
    await stores.connections.replace(workspace.id, account.wabaId, cipher.encrypt(account.accessToken), [
      { id: number.id, display_phone_number: number.displayPhoneNumber, throughput: { level: number.throughputLevel } }
    ])
    const { secret } = await stores.keys.create(workspace.id, 'durability')
    return { workspaceId: workspace.id, authorization: `Bearer ${secret}` }
  })
}
