import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../db/client.js'
import { verifyPassword } from '../../src/crypto/password.js'
import { userStore } from '../../src/store/users.js'
import { embeddedBackend, type CliBackend } from '../cli/backends.js'
import { runCli } from '../helpers/cli.js'

describe('outbound user create', () => {
  let backend: CliBackend
  const cli = async (...args: string[]) => await runCli(args, backend.env)

  beforeAll(async () => { backend = await embeddedBackend() })
  afterAll(async () => { await backend.close() })

  it('creates a dashboard user and prints the generated password once; the database keeps only its hash', async () => {
    const workspace = (await cli('workspace', 'create', '--name', 'Acme', '--plan', 'free')).json
    const created = await cli('user', 'create', '--workspace', workspace.id, '--email', 'Ops@Acme.test')
    expect(created.code, created.stderr).toBe(0)
    expect(created.json).toEqual({ id: expect.stringMatching(/^usr_/), email: 'ops@acme.test', workspace_id: workspace.id, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) })

    const handle = openDatabase(undefined, backend.env.DATA_DIR)
    try {
      const user = await userStore(handle.db).byEmail('ops@acme.test')
      expect(user?.passwordHash).not.toContain(created.json.password)
      expect(await verifyPassword(created.json.password, user!.passwordHash)).toBe(true)
    } finally {
      await handle.close()
    }
  })

  it('refuses a taken email, an unknown workspace and a malformed address; missing flags are usage errors', async () => {
    const workspace = (await cli('workspace', 'create', '--name', 'Beta', '--plan', 'growth')).json
    // One at a time: each command holds the embedded database while it runs.
    const taken = await cli('user', 'create', '--workspace', workspace.id, '--email', 'OPS@acme.test')
    const unknown = await cli('user', 'create', '--workspace', 'ws_nope', '--email', 'new@acme.test')
    const [malformed, usage] = await Promise.all([cli('user', 'create', '--workspace', workspace.id, '--email', 'not an email'), cli('user', 'create', '--workspace', workspace.id)])
    expect(taken).toMatchObject({ code: 1, json: { ok: false, error: 'a user with the email ops@acme.test already exists' } })
    expect(unknown).toMatchObject({ code: 1, json: { ok: false, error: 'workspace "ws_nope" not found' } })
    expect(malformed).toMatchObject({ code: 2, json: { ok: false, error: 'usage: outbound user create --workspace ID --email E (--email must be an email address)' } })
    expect(usage.code).toBe(2)
    expect(usage.json.error).toBe('usage: outbound user create --workspace ID --email E (missing --email)')
  })
})
