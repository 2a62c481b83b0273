import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.js'
import { openRuntime } from '../../src/runtime.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { cliEnv, repoRoot } from './cli.js'
import { TEST_ENCRYPTION_KEY } from './config.js'
import { createPostgresDatabase, poolEnv } from './database.js'
import { freePort } from './gateway.js'
import { waitFor } from './wait.js'

export interface RunningServer {
  url: string
  process: ChildProcess
  /** everything it wrote so far, stdout and stderr */
  output (): string
  /** SIGTERM, then its exit */
  stop (): Promise<void>
  /** kill -9, then its exit */
  kill (): Promise<void>
}

/** The real server as `npm start` runs it (dist/, built by the tests' global setup) on env.PORT or a free port, once /healthz answers. */
export async function startServer (env: Record<string, string | undefined>): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: repoRoot,
    env: cliEnv({ LOG_LEVEL: 'warn', ...env, HOST: '127.0.0.1', PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', chunk => { output += chunk })
  child.stderr.on('data', chunk => { output += chunk })
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name)
    await exited
  }
  const server: RunningServer = { url: `http://127.0.0.1:${port}`, process: child, output: () => output, stop: async () => await signal('SIGTERM'), kill: async () => await signal('SIGKILL') }
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error('exited')
      return await fetch(`${server.url}/healthz`).then(response => response.ok, () => false)
    }, { timeoutMs: 30_000, intervalMs: 100, what: 'the server to answer' })
  } catch {
    await server.stop()
    throw new Error(`the server did not start:\n${output}`)
  }
  return server
}

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
    env: { DATABASE_URL: database.url, DATA_DIR: dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ...poolEnv() },
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

/**
 * A project of package.json's own `start` script, the compiled server swapped for the sources
 * through tsx (building dist/ there would take a minute of the suite): same npm, same shell, same exec.
 */
export interface NpmStartProject { dir: string, remove (): Promise<void> }

export async function npmStartProject (name: string): Promise<NpmStartProject> {
  const start = (JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  const dir = await mkdtemp(join(tmpdir(), `outbound-${name}-`))
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true, scripts: { start: start.replace('src/start.mjs', `--import tsx ${join(repoRoot, 'src/server.ts')}`) } }))
  await symlink(join(repoRoot, 'node_modules'), join(dir, 'node_modules'))
  return { dir, remove: async () => { await rm(dir, { recursive: true, force: true }) } }
}

/** `npm start --silent` in such a project, as an operator runs it; what it printed so far, and its exit code. */
export function spawnNpmStart (dir: string, env: Record<string, string | undefined>): { npm: ChildProcess, stdout (): string, stderr (): string, exited: Promise<number | null> } {
  const npm = spawn('npm', ['start', '--silent'], { cwd: dir, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  npm.stdout.on('data', chunk => { stdout += chunk })
  npm.stderr.on('data', chunk => { stderr += chunk })
  const exited = new Promise<number | null>(resolve => npm.once('exit', code => resolve(code)))
  return { npm, stdout: () => stdout, stderr: () => stderr, exited }
}
