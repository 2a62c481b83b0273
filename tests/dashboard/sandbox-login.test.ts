import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, stopSandbox } from '../helpers/sandbox.js'

describe('npm run sandbox: the demo dashboard sign-in', () => {
  let dataDir: string
  beforeAll(async () => { dataDir = await mkdtemp(join(tmpdir(), 'outbound-sandbox-login-')) })
  afterAll(async () => { await rm(dataDir, { recursive: true, force: true }) })

  it('prints the dashboard URL and a demo sign-in that works, and keeps it in the state file', async () => {
    const sandbox = await startSandbox(dataDir)
    try {
      const [, url, email, password] = /Dashboard\s+(\S+)\s+\(sign in as (\S+) with password (\S+)\)/.exec(sandbox.banner) ?? []
      expect(url).toBe(`http://127.0.0.1:${sandbox.port}/dashboard`)
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
      await stopSandbox(sandbox)
    }
  }, 90_000)
})
