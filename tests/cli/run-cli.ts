import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { ConfigSchema } from '../../src/config.js'

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
export const binPath = fileURLToPath(new URL('../../src/cli/bin.js', import.meta.url))

export interface CliResult { code: number, stdout: string, stderr: string, json: any }

/** The environment of this process without any Outbound variable, plus the given ones: nothing leaks in from the developer's shell. */
export function cliEnv (env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !Object.hasOwn(ConfigSchema.properties, name)))
  return { ...base, ...env }
}

/** Runs `node src/cli/bin.js …` as an operator would; json is the one object printed on stdout (exit 0) or stderr. */
export async function runCli (args: string[], env: Record<string, string | undefined>, options: { cwd?: string, command?: string[] } = {}): Promise<CliResult> {
  const [file, ...prefix] = options.command ?? [process.execPath, binPath]
  return await new Promise(resolve => {
    execFile(file, [...prefix, ...args], { env: cliEnv(env), cwd: options.cwd ?? repoRoot }, (error, stdout, stderr) => {
      const code = error ? Number(error.code ?? 1) : 0
      const printed = code === 0 ? stdout : stderr.split('\n').filter(line => line.startsWith('{')).join('\n')
      let json: unknown
      try { json = JSON.parse(printed) } catch { json = undefined }
      resolve({ code, stdout, stderr, json })
    })
  })
}

export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

export interface RunningServer { url: string, process: ChildProcess, stop(): Promise<void> }

/** The real server as `npm start` runs it (dist/, built by the tests' global setup) on env.PORT or a free port, once /healthz answers. */
export async function startServer (env: Record<string, string | undefined>): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: repoRoot,
    env: cliEnv({ LOG_LEVEL: 'warn', ...env, HOST: '127.0.0.1', PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout!.on('data', chunk => { output += chunk })
  child.stderr!.on('data', chunk => { output += chunk })
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  const deadline = Date.now() + 30_000
  while (!await answers(`${url}/healthz`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`the server did not start:\n${output}`)
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return { url, process: child, stop }
}

async function answers (url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok
  } catch {
    return false
  }
}
