import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/gateway.js'

describe('npm run sandbox: the demo dashboard sign-in', () => {
  let dataDir: string
  beforeAll(async () => { dataDir = await mkdtemp(join(tmpdir(), 'outbound-sandbox-login-')) })
  afterAll(async () => { await rm(dataDir, { recursive: true, force: true }) })

  it('prints the dashboard URL and a demo sign-in that works, and keeps it in the state file', async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ['src/launch.mjs', 'sandbox'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: '', ENCRYPTION_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', chunk => { output += chunk })
    child.stderr.on('data', chunk => { output += chunk })
    const exited = new Promise(resolve => child.once('exit', resolve))
    try {
      const deadline = Date.now() + 45_000
      while (!output.includes('See the log:')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sandbox did not start:\n${output}`)
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      const [, url, email, password] = /Dashboard\s+(\S+)\s+\(sign in as (\S+) with password (\S+)\)/.exec(output) ?? []
      expect(url).toBe(`http://127.0.0.1:${port}/dashboard`)
      expect(JSON.parse(await readFile(join(dataDir, 'sandbox.json'), 'utf8'))).toMatchObject({ dashboardEmail: email, dashboardPassword: password })

      const form = await fetch(`${url}/login`)
      const cookie = form.headers.getSetCookie().map(header => header.split(';')[0]).join('; ')
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]
      const signedIn = await fetch(`${url}/login`, {
        method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password, _csrf: token })
      })
      expect(signedIn.status).toBe(303)
      const session = signedIn.headers.getSetCookie().find(header => header.startsWith('outbound_session='))!.split(';')[0]
      const overview = await (await fetch(url, { headers: { cookie: session } })).text()
      expect(overview).toContain('Sandbox demo')
      expect(overview).toContain('+1 555-078-3881')
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  }, 90_000)
})
