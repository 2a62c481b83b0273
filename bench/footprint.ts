import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { Pool } from 'undici'
import { defaultAccount } from '../src/sandbox/emulator/index.js'
import { startChild } from './child.js'
import { mib, table } from './lib.js'

// The embedded default as a self-hoster starts it: `npm start` on a fresh DATA_DIR (after the build,
// which is not timed), time to the first 200 on /healthz; then, with a workspace connected through the
// CLI, 100 sends through the emulator and the server's RSS once idle. Beside it: the same server
// started from source under tsx (no build, so no database template: initdb runs in the server), and
// the bare node:http + undici forwarder after the same 100 sends.
const root = fileURLToPath(new URL('../', import.meta.url))
const SENDS = 100

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise(resolve => server.close(resolve))
  return port
}

/** The node process under `pid` (itself included) whose command line mentions `needle` (npm runs it through sh). */
function findProcess (pid: number, needle: string): number | undefined {
  const args = (p: number) => { try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0') } catch { return [] } }
  const [program, ...rest] = args(pid)
  if (program?.endsWith('node') && rest.some(arg => arg.includes(needle))) return pid
  for (const entry of readdirSync('/proc').filter(name => /^\d+$/.test(name))) {
    const stat = (() => { try { return readFileSync(`/proc/${entry}/stat`, 'utf8') } catch { return '' } })()
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) {
      const found = findProcess(Number(entry), needle)
      if (found) return found
    }
  }
  return undefined
}

const rssOf = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) * 1024

interface Started { child: ChildProcess, pid: number, url: string, msToHealthy: number }

async function start (command: string[], needle: string, env: Record<string, string>): Promise<Started> {
  const port = await freePort()
  const begun = Date.now()
  const child = spawn(command[0], command.slice(1), { cwd: root, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode}`)
    const healthy = await fetch(`${url}/healthz`).then(response => response.status === 200, () => false)
    if (healthy) break
    await sleep(20)
  }
  const msToHealthy = Date.now() - begun
  return { child, pid: findProcess(child.pid!, needle)!, url, msToHealthy }
}

async function stop (started: Started): Promise<void> {
  const exited = new Promise(resolve => started.child.once('exit', resolve))
  process.kill(started.pid, 'SIGTERM')
  await exited
}

/** The CLI against the stopped server's DATA_DIR: a Growth workspace connected to the emulator, and its key. */
function connectWorkspace (env: Record<string, string>): string {
  const cli = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [join(root, 'src/cli/bin.js'), ...args], { cwd: root, env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, encoding: 'utf8' }))
  const account = defaultAccount()
  const workspace = cli('workspace', 'create', '--name', 'footprint', '--plan', 'growth')
  cli('connect', '--workspace', workspace.id, '--waba-id', account.wabaId, '--access-token', account.accessToken)
  return `Bearer ${cli('keys', 'create', '--workspace', workspace.id).secret}`
}

async function sendAll (url: string, authorization: string): Promise<void> {
  const pool = new Pool(url, { connections: 4 })
  try {
    for (let index = 0; index < SENDS; index++) {
      const response = await pool.request({ method: 'POST', path: '/api/messages.php', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ to: `1444${String(index).padStart(7, '0')}`, body: 'Hello' }) })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`footprint bench: send answered ${response.statusCode}`)
    }
  } finally {
    await pool.close()
  }
}

async function measureGateway (name: string, command: string[], needle: string, emulatorUrl: string): Promise<(string | number)[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outbound-footprint-'))
  // PUBLIC_URL on a closed port: the CLI's webhook registration fails at once (the server is stopped then)
  const env = { DATA_DIR: dataDir, GRAPH_API_URL: emulatorUrl, TEMPLATE_SYNC_INTERVAL_MS: '0', PUBLIC_URL: 'http://127.0.0.1:1' }
  try {
    const fresh = await start(command, needle, env)
    const freshRss = rssOf(fresh.pid)
    await stop(fresh)
    const authorization = connectWorkspace(env)
    const again = await start(command, needle, env)
    try {
      await sendAll(again.url, authorization)
      await sleep(3000)
      return [name, fresh.msToHealthy, mib(freshRss), again.msToHealthy, mib(rssOf(again.pid))]
    } finally {
      await stop(again)
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function benchFootprint (): Promise<string> {
  execFileSync(process.execPath, [join(root, 'src/build.mjs')], { stdio: 'inherit' })
  const emulator = await startChild<{ url: string }>('emulator')
  try {
    const rows = [
      await measureGateway('gateway: npm start (built)', ['npm', 'start', '--silent'], 'src/start.mjs', emulator.ready.url),
      await measureGateway('gateway from source: node --import tsx src/server.ts', [process.execPath, '--import', 'tsx', 'src/server.ts'], 'src/server.ts', emulator.ready.url)
    ]
    // how long any node process takes to answer here and now: the load of the machine moves start times a lot
    const trivial = await start([process.execPath, '-e', "require('http').createServer((q, s) => s.end('ok')).listen(process.env.PORT, '127.0.0.1')"], '-e', {})
    await stop(trivial)
    rows.push(['baseline: `node -e` with a node:http server', trivial.msToHealthy, '-', '-', '-'])
    const bare = await startChild<{ url: string }>('baseline', { GRAPH_API_URL: emulator.ready.url, BENCH_CLIENT: 'bare' })
    try {
      await sendAll(bare.ready.url, 'none')
      await sleep(3000)
      rows.push(['baseline: node:http + undici forwarder', '-', '-', '-', mib((await bare.call<{ now: number }>('rss')).now)])
    } finally {
      await bare.stop()
    }
    return `Footprint: the embedded default (PGlite in a fresh DATA_DIR), the server's own process; RSS idle 3 s after ${SENDS} sends through the emulator\n\n` +
      table(['server', 'fresh DATA_DIR: ms to /healthz 200', 'RSS MiB then', 'restart: ms to /healthz 200', `RSS MiB idle after ${SENDS} sends`], rows)
  } finally {
    await emulator.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchFootprint())
}
