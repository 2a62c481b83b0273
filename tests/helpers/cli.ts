import { execFile } from 'node:child_process'
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
