import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { binPath, runCli } from '../helpers/cli.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'

const recorder = fileURLToPath(new URL('./record-imports.mjs', import.meta.url))
// what the gateway's server side loads: Fastify (the app, the dashboard), the upstream client (got,
// undici), the pacer (p-queue), Redis, metrics, logging, uploads
const SERVER_PACKAGES = ['fastify', '@fastify/', 'got', 'undici', 'p-queue', 'ioredis', 'prom-client', 'pino', 'file-type']
// functions of the modules a list command must not load (the bundle keeps their names)
const SERVER_FUNCTIONS = ['function buildApp(', 'function createUpstreamClient(', 'function createLocalPacer(', 'function dashboardErrorHandler(']

/**
 * `outbound keys list` loads only what it needs: every module the real executable imports is
 * recorded from outside (node --import tests/cli/record-imports.mjs, a resolve hook), on the
 * embedded database and, with TEST_DATABASE_URL, on PostgreSQL.
 */
describe.each([
  ['embedded PGlite', false],
  ['PostgreSQL', true]
])('outbound keys list on %s loads no server, dashboard, pacer or upstream client', (_title, onPostgres) => {
  const skip = onPostgres && !process.env.TEST_DATABASE_URL
  let scratch: string
  let database: TestDatabase | undefined
  let env: Record<string, string>

  beforeAll(async () => {
    if (skip) return
    scratch = await mkdtemp(join(tmpdir(), 'outbound-cli-lazy-'))
    database = onPostgres ? await createPostgresDatabase(process.env.TEST_DATABASE_URL!) : undefined
    env = { DATA_DIR: scratch, ...(database && { DATABASE_URL: database.url, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }) }
  })
  afterAll(async () => {
    await database?.drop()
    if (scratch) await rm(scratch, { recursive: true, force: true })
  })

  it.skipIf(skip)('imports the database driver and the key store, none of the server', async () => {
    const workspace = await runCli(['workspace', 'create', '--name', 'Lazy', '--plan', 'free'], env)
    expect(workspace.code).toBe(0)
    const record = join(scratch, 'imports.txt')
    const listed = await runCli(['keys', 'list', '--workspace', workspace.json.id], { ...env, RECORD_IMPORTS: record },
      { command: [process.execPath, '--import', recorder, binPath] })
    expect(listed).toMatchObject({ code: 0, json: { keys: [] } })

    const urls = [...new Set((await readFile(record, 'utf8')).split('\n').filter(Boolean))]
    const packages = urls.filter(url => url.includes('/node_modules/')).map(url => url.split('/node_modules/').at(-1)!)
    // the recorder sees what the command imports: the bundle's chunks, PGlite (postgres.js is bundled)
    expect(urls.some(url => url.endsWith('/dist/bin/cli.js'))).toBe(true)
    if (!onPostgres) expect(packages.some(name => name.startsWith('@electric-sql/pglite/'))).toBe(true)
    expect(packages.filter(name => SERVER_PACKAGES.some(server => name.startsWith(server)))).toEqual([])
    expect(urls.filter(url => url.includes('/dist/src/') || url.includes('tsx'))).toEqual([])

    const chunks = await Promise.all(urls.filter(url => url.includes('/dist/bin/')).map(async url => await readFile(fileURLToPath(url), 'utf8')))
    for (const name of SERVER_FUNCTIONS) expect(chunks.filter(text => text.includes(name)), name).toEqual([])
    expect(chunks.some(text => text.includes('function apiKeyStore('))).toBe(true)
  })
})
