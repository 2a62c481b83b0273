import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { firstContact } from '../../src/first-contact.js'
import { runCli } from '../helpers/cli.js'
import { TEST_ENCRYPTION_KEY } from '../helpers/config.js'
import { freePort } from '../helpers/gateway.js'
import { npmStartProject, spawnNpmStart, type NpmStartProject } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

/**
 * `npm start` as a newcomer meets it (issue 24): the script is package.json's own `start`, with the
 * compiled server swapped for the sources through tsx as in tests/faults/stop.test.ts (building dist/
 * would take a minute of the suite): same npm, same shell, same exec, same server.
 */
describe('npm start, first contact: the dashboard URL and the first step, printed once', () => {
  let project: NpmStartProject
  let dataDir: string

  beforeAll(async () => {
    project = await npmStartProject('first-contact')
    dataDir = join(project.dir, 'data')
  })
  afterAll(async () => {
    await project?.remove()
  })

  const env = () => ({ DATA_DIR: dataDir, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, HOST: '127.0.0.1', LOG_LEVEL: 'info', TEMPLATE_SYNC_INTERVAL_MS: '0' })

  /** npm start until it has spoken, `probe` while it runs; what it printed, then SIGTERM and its exit code. */
  async function npmStart (probe?: (stdout: string) => Promise<void>): Promise<{ stdout: string, stderr: string, url: string, code: number | null }> {
    const port = await freePort()
    const { npm, stdout, stderr, exited } = spawnNpmStart(project.dir, { ...env(), PORT: String(port) })
    const url = `http://127.0.0.1:${port}`
    try {
      await waitFor(async () => stdout().includes('API reference'), { timeoutMs: 90_000, what: () => `the first words (${stderr()})` })
      expect((await fetch(`${url}/healthz`)).status).toBe(200)
      await probe?.(stdout())
      // anything printed twice would have come by now
      await new Promise(resolve => setTimeout(resolve, 500))
    } finally {
      npm.kill('SIGTERM')
    }
    return { stdout: stdout(), stderr: stderr(), url, code: await exited }
  }

  const plainLines = (stdout: string) => stdout.split('\n').filter(line => !line.startsWith('{'))

  it('on a new database: where the dashboard is, and the CLI commands that make the first workspace and user', async () => {
    const { stdout, url, code } = await npmStart(async printed => {
      // the dashboard URL it prints is the dashboard: its sign-in page for a stranger
      const dashboard = /Dashboard\s+(\S+)/.exec(printed)![1]
      const answer = await fetch(dashboard, { redirect: 'manual' })
      expect([200, 302, 303]).toContain(answer.status)
      const page = answer.status === 200 ? answer : await fetch(new URL(answer.headers.get('location')!, dashboard))
      expect(await page.text()).toContain('Sign in')
    })
    expect(code).toBe(0)
    const said = plainLines(stdout).join('\n')
    expect(said.match(/Outbound is running at/g)).toHaveLength(1)
    expect(said).toContain(`Outbound is running at ${url}\n`)
    expect(said).toContain(`Dashboard       ${url}/dashboard\n`)
    expect(said).toContain(`API reference   ${url}/docs\n`)
    expect(said).toContain('npx outbound workspace create --name "My company" --plan growth')
    expect(said).toContain('npx outbound user create --workspace <the id it printed> --email you@example.com')
    expect(said).toContain('Ctrl-C')
    expect(said).toContain('npm run sandbox')
    // plain words, not a log line: no JSON line carries them, and no secret is in any line
    expect(stdout.split('\n').filter(line => line.startsWith('{') && /Outbound is running|First step|outbound user create/.test(line))).toEqual([])
    expect(stdout).not.toContain(TEST_ENCRYPTION_KEY)
  })

  it('the printed steps work as printed, and once a user exists only the addresses are printed', async () => {
    const workspace = await runCli(['workspace', 'create', '--name', 'My company', '--plan', 'growth'], env())
    expect(workspace.code).toBe(0)

    const user = await runCli(['user', 'create', '--workspace', workspace.json.id, '--email', 'you@example.com'], env())
    expect(user.code).toBe(0)
    const { stdout, url, code } = await npmStart()
    expect(code).toBe(0)
    const said = plainLines(stdout).join('\n')
    expect(said).toContain(`Dashboard       ${url}/dashboard`)
    expect(said).not.toContain('First step')
    expect(stdout).not.toContain(user.json.password)
  })

  it('with a workspace but no user yet, names the workspace in the one step left', () => {
    const config = loadConfig({ ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DATABASE_URL: 'postgres://db.example/outbound' })
    const said = firstContact(config, 'http://127.0.0.1:3000', { firstWorkspaceId: 'ws_first', users: 0 })
    expect(said).toContain('npx outbound user create --workspace ws_first --email you@example.com')
    expect(said).not.toContain('workspace create')
    // beside PostgreSQL the command line works while the server runs
    expect(said).not.toContain('Ctrl-C')
  })
})
