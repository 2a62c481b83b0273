import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot, runCli, type CliResult } from '../helpers/cli.js'

/**
 * The CLI runs the build in dist/ and never a stale one: in a copy of the checkout (its sources and
 * dist/ copied with their times, node_modules linked), a changed source is rebuilt before the command
 * runs, once however many commands start together, and a source that does not build stops the
 * command with what to run.
 */
describe('outbound runs from dist/, rebuilt when a source changed', () => {
  let project: string
  const summaryFile = () => join(project, 'src/cli/commands/migrate.ts')

  async function help (): Promise<CliResult> {
    return await runCli(['help', 'migrate'], {}, { cwd: project, command: [process.execPath, 'src/cli/bin.js'] })
  }

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'outbound-build-'))
    const sources = ['src', 'plugins', 'routes', 'db', 'tsconfig.json', 'package.json', 'package-lock.json']
    for (const entry of [...sources, 'dist']) cpSync(join(repoRoot, entry), join(project, entry), { recursive: true, preserveTimestamps: true })
    symlinkSync(join(repoRoot, 'node_modules'), join(project, 'node_modules'))
    // the copied folders are new: everything built from is dated before the copied build, as in the checkout
    const before = new Date(statSync(join(project, 'dist/.built')).mtimeMs - 1000)
    for (const entry of sources) {
      const path = join(project, entry)
      const inside = statSync(path).isDirectory() ? readdirSync(path, { recursive: true }).map(name => join(path, String(name))) : []
      for (const each of [...inside, path]) utimesSync(each, before, before)
    }
  })
  afterAll(() => { if (project) rmSync(project, { recursive: true, force: true }) })

  it('runs a fresh build as it is', async () => {
    const run = await help()
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(run.stdout).commands[0].does).toMatch(/^applies migrations/)
  })

  it('rebuilds after a change, once for commands started together, and runs the new code', async () => {
    writeFileSync(summaryFile(), readFileSync(summaryFile(), 'utf8').replace("summary: 'applies migrations", "summary: 'changed: applies migrations"))
    const runs = await Promise.all([help(), help(), help()])
    for (const run of runs) {
      expect(run.code).toBe(0)
      expect(JSON.parse(run.stdout).commands[0].does).toMatch(/^changed: applies migrations/)
    }
    expect(runs.map(run => run.stderr).join('').match(/building dist/g)).toHaveLength(1)
    expect(await help()).toMatchObject({ code: 0, stderr: '' })
  })

  it('stops with what to run when the sources do not build', async () => {
    writeFileSync(join(project, 'src/cli/broken.ts'), 'export const = 1\n')
    const run = await help()
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('run `npm run build`')
    rmSync(join(project, 'src/cli/broken.ts'))
  })
})
