import { fork, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A benchmark process (bench/children/*.ts) driven over IPC: what it reported when ready, and calls to its commands. */
export interface Child<Ready> {
  ready: Ready
  pid: number
  call<T = unknown> (command: string, ...args: unknown[]): Promise<T>
  stop (): Promise<void>
}

type Commands = Record<string, (...args: any[]) => unknown>

/**
 * Starts bench/children/<name>.ts under tsx with its own environment; resolves once it says it is
 * ready. `root`: another tree's bench/children (another commit's: bench/checkout.ts).
 */
export async function startChild<Ready> (name: string, env: Record<string, string> = {}, options: { root?: string } = {}): Promise<Child<Ready>> {
  const script = options.root ? join(options.root, 'bench', 'children', `${name}.ts`) : fileURLToPath(new URL(`./children/${name}.ts`, import.meta.url))
  // BENCH_CPU_PROF=<dir>: the gateway writes a V8 CPU profile there when it exits (SIGTERM, see stop)
  const profile = process.env.BENCH_CPU_PROF && name.endsWith('gateway') ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []
  const child: ChildProcess = fork(script, [], { execArgv: ['--import', 'tsx', ...profile], env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const pending = new Map<number, { resolve (value: unknown): void, reject (error: Error): void }>()
  let next = 0
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', code => reject(new Error(`bench child ${name} exited with ${code}`)))
    child.on('message', (message: { ready?: Ready, id?: number, result?: unknown, error?: string }) => {
      if (message.ready !== undefined) resolve(message.ready)
      const call = message.id === undefined ? undefined : pending.get(message.id)
      if (!call) return
      pending.delete(message.id!)
      if (message.error) call.reject(new Error(message.error))
      else call.resolve(message.result)
    })
  })
  child.removeAllListeners('exit')
  let stopping = false
  child.once('exit', code => { if (!stopping) console.error(`bench child ${name} exited early (${code})`) })
  return {
    ready,
    pid: child.pid!,
    async call<T> (command: string, ...args: unknown[]): Promise<T> {
      const id = next++
      return await new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
        child.send({ id, command, args })
      })
    },
    async stop () {
      if (child.exitCode !== null) return
      stopping = true
      const exited = new Promise(resolve => child.once('exit', resolve))
      child.send({ id: -1, command: 'exit', args: [] })
      const forced = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(forced)
    }
  }
}

/** Inside a child: answers the parent's calls with these commands, then says it is ready. */
export function serve (commands: Commands, ready: unknown): void {
  process.on('message', async (message: { id: number, command: string, args: unknown[] }) => {
    // a clean exit, so that --cpu-prof writes its profile
    if (message.command === 'exit') process.exit(0)
    try {
      const result = await commands[message.command](...message.args)
      process.send!({ id: message.id, result })
    } catch (error) {
      process.send!({ id: message.id, error: (error as Error).message })
    }
  })
  process.send!({ ready })
}

/**
 * The process's resident set size, sampled every 20 ms so a short peak is not missed. `rss()` alone:
 * the full `memoryUsage()` also walks the heap spaces, 1% of a gateway's CPU at this rate.
 */
export function rssSampler () {
  const rss = process.memoryUsage.rss
  let peak = rss()
  const timer = setInterval(() => { peak = Math.max(peak, rss()) }, 20)
  timer.unref()
  return {
    now: () => rss(),
    peak: () => Math.max(peak, rss()),
    resetPeak: () => { peak = rss() }
  }
}
