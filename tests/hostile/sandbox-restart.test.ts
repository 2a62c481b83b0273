import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SandboxState } from '../../src/sandbox/sandbox-state.js'
import { runCli } from '../helpers/cli.js'
import { startSandbox, stopSandbox } from '../helpers/sandbox.js'

describe('npm run sandbox, restarted', () => {
  it('reuses its event endpoint (and the receiver\'s port) rather than registering another each time', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'outbound-sandbox-restart-'))
    const state = async () => JSON.parse(await readFile(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxState
    try {
      await stopSandbox(await startSandbox(dataDir))
      const first = await state()
      await stopSandbox(await startSandbox(dataDir))
      const second = await state()
      expect(second.webhookEndpointId).toBe(first.webhookEndpointId)
      expect(second.receiverPort).toBe(first.receiverPort)
      const listed = await runCli(['webhooks', 'list', '--workspace', second.workspaceId], { DATA_DIR: dataDir })
      expect(listed.code, listed.stderr).toBe(0)
      expect((listed.json as { endpoints: { id: string }[] }).endpoints.map(endpoint => endpoint.id)).toEqual([first.webhookEndpointId])
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 300_000)
})
