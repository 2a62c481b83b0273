import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from './gateway.js'
import { waitFor } from './wait.js'

export interface StartedSandbox { child: ChildProcess, port: number, /** everything printed so far */ output(): string, banner: string }

/** `npm run sandbox` as a newcomer runs it: a real process on a free port, once its banner is printed. */
export async function startSandbox (dataDir: string): Promise<StartedSandbox> {
  const port = await freePort()
  const child = spawn(process.execPath, ['src/launch.mjs', 'sandbox'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: '', ENCRYPTION_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout!.on('data', chunk => { output += chunk })
  child.stderr!.on('data', chunk => { output += chunk })
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`sandbox did not start:\n${output}`)
    return output.includes('See the log:')
  }, { timeoutMs: 90_000, intervalMs: 100, what: () => `the sandbox's banner:\n${output}` })
  return { child, port, output: () => output, banner: output }
}

export async function stopSandbox (started: StartedSandbox): Promise<void> {
  const exited = new Promise(resolve => started.child.once('exit', resolve))
  started.child.kill('SIGTERM')
  await exited
}

export const printed = (banner: string, pattern: RegExp) => pattern.exec(banner)?.[1]
