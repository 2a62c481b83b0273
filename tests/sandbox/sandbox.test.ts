import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { printed, startSandbox, stopSandbox as stop } from '../helpers/sandbox.js'
import { runCli } from '../cli/run-cli.js'

describe('npm run sandbox', () => {
  let dataDir: string
  beforeAll(async () => { dataDir = await mkdtemp(join(tmpdir(), 'outbound-sandbox-')) })
  afterAll(async () => { await rm(dataDir, { recursive: true, force: true }) })

  it('connects a demo workspace through the real handshake, prints a working key whose message reaches read, and reuses both on the next start', async () => {
    let wamid: string | undefined
    const first = await startSandbox(dataDir)
    const workspace = printed(first.banner, /Workspace\s+(ws_\S+)/)
    const secret = printed(first.banner, /Authorization: Bearer (obk_live_\S+)/)
    try {
      expect(first.banner).toContain('webhook registered: true')
      expect(workspace).toBeDefined()
      const response = await fetch(`http://127.0.0.1:${first.port}/api/messages.php`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '15551234567', body: 'Hello from Outbound' })
      })
      const sent = await response.json() as { wamid: string }
      expect(sent).toMatchObject({ ok: true, status: 'sent', wamid: expect.stringMatching(/^wamid\./) })
      wamid = sent.wamid
      // the emulator's signed delivered and read webhooks arrive within a second
      await new Promise(resolve => setTimeout(resolve, 1500))
    } finally {
      await stop(first)
    }

    const listed = await runCli(['messages', 'list', '--workspace', workspace!], { DATA_DIR: dataDir })
    expect(listed.json.messages).toEqual([expect.objectContaining({ wamid, to: '15551234567', status: 'read', attempts: 1 })])

    const second = await startSandbox(dataDir)
    try {
      expect(printed(second.banner, /Workspace\s+(ws_\S+)/)).toBe(workspace)
      expect(printed(second.banner, /Authorization: Bearer (obk_live_\S+)/)).toBe(secret)
      expect(second.banner).toContain('webhook registered: true')
    } finally {
      await stop(second)
    }
  }, 120_000)
})
