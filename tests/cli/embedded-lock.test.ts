import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../db/client.js'
import { workspaces } from '../../db/schema.js'
import { embeddedBackend, type CliBackend } from './backends.js'
import { runCli } from '../helpers/cli.js'
import { startServer, type RunningServer } from '../helpers/server.js'

describe('outbound on embedded PGlite while a server holds the database', () => {
  let backend: CliBackend
  let server: RunningServer | undefined
  const cli = async (...args: string[]) => await runCli(args, backend.env)

  beforeAll(async () => { backend = await embeddedBackend() })
  afterAll(async () => {
    await server?.stop()
    await backend.close()
  })

  it('refuses while the server runs, touches nothing, and works once it stops', async () => {
    const workspace = (await cli('workspace', 'create', '--name', 'Before', '--plan', 'growth')).json
    expect(existsSync(join(backend.env.DATA_DIR, 'outbound.lock'))).toBe(false)

    server = await startServer(backend.env)
    const refused = await cli('workspace', 'create', '--name', 'During', '--plan', 'free')
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe('')
    expect(refused.json.ok).toBe(false)
    expect(refused.json.error).toContain(`in use by a running server (pid ${server.process.pid})`)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    await server.stop()
    expect(existsSync(join(backend.env.DATA_DIR, 'outbound.lock'))).toBe(false)

    const after = await cli('workspace', 'plan', '--workspace', workspace.id, '--plan', 'scale')
    expect(after.code).toBe(0)
    expect(after.json).toMatchObject({ id: workspace.id, name: 'Before', plan: 'scale' })
    const handle = openDatabase(undefined, backend.env.DATA_DIR)
    try {
      expect((await handle.db.select({ name: workspaces.name }).from(workspaces)).map(row => row.name)).toEqual(['Before'])
    } finally {
      await handle.close()
    }
  })
})
