import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
// @ts-expect-error plain JavaScript without declarations
import { ensureBuilt } from '../src/build.mjs'
import { machineDetails } from './lib.js'

// `npx tsx bench/cli.ts`: what an operator's command costs from start to exit. Each command runs as
// a process of its own (`node src/cli/bin.js …`, as `npx outbound` does), BENCH_CLI_RUNS times
// (default 5) in turns with `node -e 0` measured in the same run: median wall time, median CPU time
// (user + system), peak RSS, and the ratios to `node -e 0`. On the embedded default (a DATA_DIR made
// by the first command) and, with BENCH_DATABASE_URL or TEST_DATABASE_URL, on PostgreSQL (a fresh
// database, dropped after), then `npm run sandbox`'s first and later starts. BENCH_CLI_BEFORE=<dir of
// another checkout> adds its `keys list` and its sandbox's starts beside today's. BENCH_CLI_PROFILE=1
// adds where one `keys list` and a second start of the sandbox spend their time (node --cpu-prof, self
// time by package or part of node).

const root = fileURLToPath(new URL('../', import.meta.url))
const bin = join(root, 'src/cli/bin.js')
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 5)
const TIME = '/usr/bin/time'
// an older checkout (its node_modules installed or linked) whose `keys list` runs beside today's
const before = process.env.BENCH_CLI_BEFORE

interface Sample { wallMs: number, cpuMs: number, rssKiB: number }

/** One process: wall time from here, CPU and peak RSS from /usr/bin/time, or from the process itself (resource-usage.mjs) without it. */
async function measure (argv: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  const viaTime = existsSync(TIME)
  const [file, ...args] = viaTime ? [TIME, '-f', 'BENCH %e %U %S %M', process.execPath, ...argv] : [process.execPath, '--import', join(root, 'bench/children/resource-usage.mjs'), ...argv]
  const started = performance.now()
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(file, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] })
    let text = ''
    child.stderr.on('data', chunk => { text += chunk })
    child.on('exit', code => code === 0 ? resolve(text) : reject(new Error(`${argv.join(' ')} exited ${code}: ${text}`)))
  })
  const wallMs = performance.now() - started
  const line = stderr.split('\n').find(text => text.startsWith('BENCH '))
  if (!line) throw new Error(`no resource usage in: ${stderr}`)
  const [, , user, system, rss] = line.split(' ').map(Number)
  return { wallMs, cpuMs: (user + system) * 1000, rssKiB: rss }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

interface Row { backend: string, command: string, samples: Sample[] }

async function workspaceOf (env: NodeJS.ProcessEnv): Promise<string> {
  const out = execFileSync(process.execPath, [bin, 'workspace', 'create', '--name', 'bench', '--plan', 'free'], { cwd: root, env, encoding: 'utf8' })
  return (JSON.parse(out) as { id: string }).id
}

function commandsOf (workspace: string): [string, string[]][] {
  return [
    ['keys list', ['keys', 'list', '--workspace', workspace]],
    ['messages list', ['messages', 'list', '--workspace', workspace]],
    ['workspace create', ['workspace', 'create', '--name', 'bench', '--plan', 'free']]
  ]
}

/** The environment of this process without any Outbound variable, plus the backend's. */
function envOf (extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !['DATABASE_URL', 'DATA_DIR', 'ENCRYPTION_KEY', 'LOG_LEVEL'].includes(name)))
  return { ...base, ...extra }
}

export async function benchCli (): Promise<string> {
  ensureBuilt()
  const scratch = mkdtempSync(join(tmpdir(), 'outbound-bench-cli-'))
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  const admin = serverUrl ? postgres(serverUrl, { max: 1, onnotice: () => {} }) : undefined
  const name = `outbound_bench_cli_${process.pid}`
  try {
    const backends: [string, NodeJS.ProcessEnv][] = [['PGlite (embedded default)', envOf({ DATA_DIR: join(scratch, 'embedded') })]]
    if (admin && serverUrl) {
      await admin.unsafe(`create database ${name}`)
      const url = new URL(serverUrl)
      url.pathname = `/${name}`
      backends.push(['PostgreSQL', envOf({ DATA_DIR: join(scratch, 'pg'), DATABASE_URL: url.toString(), ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') })])
    }
    const baseline: Row = { backend: '-', command: 'node -e 0', samples: [] }
    const rows: Row[] = []
    const plans: { row: Row, argv: string[], env: NodeJS.ProcessEnv }[] = [{ row: baseline, argv: ['-e', '0'], env: envOf({}) }]
    for (const [backend, env] of backends) {
      const workspace = await workspaceOf(env) // also migrates (PostgreSQL) or makes the DATA_DIR (PGlite)
      for (const [command, args] of commandsOf(workspace)) {
        const row = { backend, command, samples: [] }
        rows.push(row)
        plans.push({ row, argv: [bin, ...args], env })
      }
      if (before) {
        const row = { backend, command: `keys list, ${before} (before)`, samples: [] }
        rows.push(row)
        plans.push({ row, argv: [join(before, 'src/cli/bin.js'), ...commandsOf(workspace)[0][1]], env })
      }
    }
    // in turns, so that the machine's load falls on every command alike
    for (let run = 0; run < RUNS; run++) {
      for (const plan of plans) plan.row.samples.push(await measure(plan.argv, plan.env))
    }

    const wall0 = median(baseline.samples.map(sample => sample.wallMs))
    const cpu0 = median(baseline.samples.map(sample => sample.cpuMs))
    const line = (row: Row) => {
      const wall = median(row.samples.map(sample => sample.wallMs))
      const cpu = median(row.samples.map(sample => sample.cpuMs))
      const peak = Math.max(...row.samples.map(sample => sample.rssKiB)) / 1024
      return `| ${row.backend} | ${row.command} | ${wall.toFixed(0)} | ${(wall / wall0).toFixed(1)}× | ${cpu.toFixed(0)} | ${(cpu / cpu0).toFixed(1)}× | ${peak.toFixed(0)} |`
    }
    const table = [
      `CLI commands, each its own process (\`node src/cli/bin.js …\`), median of ${RUNS} in turns with \`node -e 0\`; ${machineDetails()}; load average before ${loadavg().map(load => load.toFixed(2)).join(' ')}`,
      '',
      '| backend | command | wall ms | × node -e 0 | CPU ms | × node -e 0 | peak RSS MiB |',
      '|---|---|---|---|---|---|---|',
      line(baseline),
      ...rows.map(line)
    ].join('\n')
    const sandbox = await sandboxStarts(scratch, wall0)
    if (process.env.BENCH_CLI_PROFILE !== '1') return [table, sandbox].join('\n\n')
    const profiles = []
    for (const [, env] of backends) profiles.push(profile(env, await workspaceOf(env)))
    profiles.push(await sandboxProfile(join(scratch, 'sandbox-0')))
    return [table, sandbox, ...profiles].join('\n\n')
  } finally {
    await admin?.unsafe(`drop database if exists ${name} with (force)`).catch(() => {})
    await admin?.end()
    rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * `npm run sandbox` started BENCH_CLI_RUNS + 1 times on one DATA_DIR: ms until its banner and the RSS
 * then, the first start apart; with BENCH_CLI_BEFORE, that checkout's sandbox too (its own DATA_DIR),
 * in turns with today's.
 */
async function sandboxStarts (scratch: string, wall0: number): Promise<string> {
  const checkouts = [{ label: 'today', dir: root }, ...(before ? [{ label: `${before} (before)`, dir: before }] : [])]
  const starts = checkouts.map(() => [] as { ms: number, rssMiB: number }[])
  for (let run = 0; run <= RUNS; run++) {
    for (const [i, { dir }] of checkouts.entries()) starts[i].push(await sandboxStart(dir, join(scratch, `sandbox-${i}`)))
  }
  const rows = checkouts.flatMap(({ label }, i) => {
    const [first, ...again] = starts[i]
    const ms = median(again.map(start => start.ms))
    return [`| ${label} | first | ${first.ms.toFixed(0)} | ${(first.ms / wall0).toFixed(1)}× | ${first.rssMiB.toFixed(0)} |`,
      `| ${label} | again (median) | ${ms.toFixed(0)} | ${(ms / wall0).toFixed(1)}× | ${median(again.map(start => start.rssMiB)).toFixed(0)} |`]
  })
  return [`\`npm run sandbox\` on one DATA_DIR: the first start (a new database, workspace, key and user), then the median of ${RUNS} more (all reused)`, '',
    '| checkout | start | ms until the banner | × node -e 0 | peak RSS MiB then |', '|---|---|---|---|---|', ...rows].join('\n')
}

async function freePort (): Promise<number> {
  return await new Promise<number>(resolve => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function sandboxStart (checkout: string, dataDir: string): Promise<{ ms: number, rssMiB: number }> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, ['src/launch.mjs', 'sandbox'], { cwd: checkout, env: envOf({ DATA_DIR: dataDir, PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', chunk => { output += chunk })
  child.stderr.on('data', chunk => { output += chunk })
  while (!output.includes('See the log:')) {
    if (child.exitCode !== null) throw new Error(`the sandbox did not start:\n${output}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  const ms = performance.now() - started
  const rssMiB = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024
  const exited = new Promise(resolve => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  return { ms, rssMiB }
}

/** Self time of one `keys list` under node --cpu-prof, by package (node_modules), part of node, or the bundle. */
function profile (env: NodeJS.ProcessEnv, workspace: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'outbound-bench-cli-prof-'))
  try {
    execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, join(root, 'dist/bin/cli.js'), 'keys', 'list', '--workspace', workspace], { cwd: root, env, stdio: 'ignore' })
    const { spent, total } = selfTime(readProfile(dir), 'the CLI bundle (commands, stores, drizzle-orm, postgres.js)')
    const top = [...spent].sort((a, b) => b[1] - a[1]).slice(0, 12)
    return [`Where one \`keys list\` spends its time (${backendOf(env)}; node --cpu-prof, ${(total / 1000).toFixed(0)} ms sampled, self time):`, '',
      '| part | ms | share |', '|---|---|---|',
      ...top.map(([part, us]) => `| ${part} | ${(us / 1000).toFixed(0)} | ${(100 * us / total).toFixed(0)} % |`)].join('\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface CpuProfile { nodes: { id: number, callFrame: { functionName: string, url: string }, children?: number[] }[], samples: number[], timeDeltas: number[] }

function readProfile (dir: string): CpuProfile {
  const file = readdirSync(dir).find(name => name.endsWith('.cpuprofile'))!
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
}

/** Self time (µs) by package (node_modules), part of node, or the bundle, of the samples up to `until` µs. */
function selfTime ({ nodes, samples, timeDeltas }: CpuProfile, bundle: string, until = Infinity): { spent: Map<string, number>, total: number } {
  const byId = new Map(nodes.map(node => [node.id, node]))
  const spent = new Map<string, number>()
  let total = 0
  let at = 0
  samples.forEach((id, i) => {
    at += timeDeltas[i]
    if (at > until) return
    const { url, functionName } = byId.get(id)!.callFrame
    const part = url.includes('/node_modules/')
      ? url.split('/node_modules/').at(-1)!.split('/').slice(0, url.includes('/node_modules/@') ? 2 : 1).join('/')
      : url.startsWith('wasm://') ? 'PGlite WebAssembly (PostgreSQL itself)'
        : url.includes('/dist/bin/') ? bundle
          : url.startsWith('node:internal/modules') ? 'node: module loading'
            : url.startsWith('node:') ? 'node: other internals'
              : functionName.startsWith('(') ? functionName : `(${functionName || 'native'})`
    spent.set(part, (spent.get(part) ?? 0) + timeDeltas[i])
    total += timeDeltas[i]
  })
  return { spent, total }
}

// the steps of a sandbox's start, as its functions are named in the bundle
const SANDBOX_STEPS: [string, string][] = [['runSandbox', 'the gateway\'s modules loaded (sandbox.ts runs)'], ['startEmulator', 'the emulator starts'],
  ['buildApp', 'the app is built'], ['demoWorkspace', 'the demo workspace and key'], ['connectWorkspace', 'the handshake with the emulator'], ['printBanner', 'the banner']]

/** A second start of the sandbox under node --cpu-prof, stopped at its banner: when each step began, and the self time by part until the banner. */
async function sandboxProfile (dataDir: string): Promise<string> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'outbound-bench-sandbox-prof-'))
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, 'src/launch.mjs', 'sandbox'], { cwd: root, env: envOf({ DATA_DIR: dataDir, PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] })
  return await new Promise<string>((resolve, reject) => {
    let output = ''
    const read = (chunk: Buffer) => {
      // once: a second SIGTERM would end it before the profile is written
      if (!output.includes('See the log:') && (output += chunk).includes('See the log:')) child.kill('SIGTERM')
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('exit', () => {
      try {
        const profile = readProfile(dir)
        const parentOf = new Map<number, number>()
        for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
        const names = new Map(profile.nodes.map(node => [node.id, node.callFrame.functionName]))
        const began = new Map<string, number>()
        let at = 0
        profile.samples.forEach((id, i) => {
          at += profile.timeDeltas[i]
          for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) {
            const name = names.get(node)!
            if (SANDBOX_STEPS.some(([step]) => step === name) && !began.has(name)) began.set(name, at)
          }
        })
        const banner = began.get('printBanner') ?? Infinity
        const { spent, total } = selfTime(profile, 'the sandbox bundle (the gateway, Fastify and its packages)', banner)
        const top = [...spent].sort((a, b) => b[1] - a[1]).slice(0, 12)
        resolve([`Where a second start of the sandbox spends its time until the banner (node --cpu-prof, the profiler's overhead included; ${(total / 1000).toFixed(0)} ms sampled): when each step began, then self time by part.`, '',
          '| step | began at ms |', '|---|---|',
          ...SANDBOX_STEPS.filter(([step]) => began.has(step)).map(([step, what]) => `| ${what} (\`${step}\`) | ${(began.get(step)! / 1000).toFixed(0)} |`), '',
          '| part | ms | share |', '|---|---|---|',
          ...top.map(([part, us]) => `| ${part} | ${(us / 1000).toFixed(0)} | ${(100 * us / total).toFixed(0)} % |`)].join('\n'))
      } catch (error) {
        reject(new Error(`no profile of the sandbox (${(error as Error).message}):\n${output}`))
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}

function backendOf (env: NodeJS.ProcessEnv): string {
  return env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchCli())
