import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { printed, startSandbox, stopSandbox as stop } from '../helpers/sandbox.js'
import { waitFor } from '../helpers/wait.js'

/** Runs a command the banner printed, as pasted into a shell. */
async function pasted (command: string, key: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)('sh', ['-c', command], { env: { ...process.env, OUTBOUND_KEY: key } })
  return JSON.parse(stdout) as Record<string, unknown>
}

describe('npm run sandbox', () => {
  let dataDir: string
  beforeAll(async () => { dataDir = await mkdtemp(join(tmpdir(), 'outbound-sandbox-')) })
  afterAll(async () => { await rm(dataDir, { recursive: true, force: true }) })

  it('connects a demo workspace through the real handshake, prints a working key whose message reaches read, and reuses both on the next start', async () => {
    let wamid: string | undefined
    const first = await startSandbox(dataDir)
    const workspace = printed(first.banner, /Workspace\s+(ws_\S+)/)
    const secret = printed(first.banner, /export OUTBOUND_KEY=(obk_live_\S+)/)
    try {
      expect(first.banner).toContain('webhook registered: true')
      expect(workspace).toBeDefined()
      const send = printed(first.banner, /\n(curl -s \S+\/api\/messages\.php \\\n[\s\S]*?\}')\n/)
      const lookup = printed(first.banner, /\n(curl -s '[^'\n]+client_reference=[^\n]+\n[^\n]+)\n/)
      const sent = await pasted(send!, secret!) as { wamid: string }
      expect(sent).toMatchObject({ ok: true, id: expect.stringMatching(/^msg_/), status: 'sent', wamid: expect.stringMatching(/^wamid\./) })
      wamid = sent.wamid
      // the emulator's signed delivered and read webhooks arrive within a second: the printed lookup shows them
      const read = await waitFor(async () => {
        const { messages } = await pasted(lookup!, secret!) as { messages: Array<{ wamid: string, status: string }> }
        return messages[0]?.wamid === wamid && messages[0].status === 'read'
      }, { what: 'read in the printed status lookup' })
      expect(read).toBe(true)
      await waitFor(async () => /\[media\] .*replied with an image uploaded as media \d+ and sent by id/.test(first.output()), { what: 'the media demo' })
      // Meta's status webhooks relayed to the built-in receiver, which checked their signature as Chatwoot does
      const relay = printed(first.banner, /\(relay (rly_\S+)\)/)
      expect(relay).toBeDefined()
      await waitFor(async () => /\[relay\] verified rld_\S+: \d+ bytes as Meta sent them, WABA \d+, fields messages/.test(first.output()), { what: 'a relayed delivery printed' })
      expect(first.output()).not.toContain('[relay] refused')
    } finally {
      await stop(first)
    }

    const listed = await runCli(['messages', 'list', '--workspace', workspace!], { DATA_DIR: dataDir })
    // the pasted text, the demo's reply to a customer's photo (an image uploaded, then sent by media id),
    // and the conversation demo's answer when it got that far before the stop
    expect(listed.json.messages.length).toBeGreaterThanOrEqual(2)
    expect(listed.json.messages).toEqual(expect.arrayContaining([expect.objectContaining({ wamid, to: '15551234567', status: 'read', attempts: 1 }), expect.objectContaining({ type: 'image', to: '15557654321', status: expect.any(String) })]))

    const second = await startSandbox(dataDir)
    try {
      expect(printed(second.banner, /Workspace\s+(ws_\S+)/)).toBe(workspace)
      expect(printed(second.banner, /export OUTBOUND_KEY=(obk_live_\S+)/)).toBe(secret)
      expect(second.banner).toContain('webhook registered: true')
      expect(printed(second.banner, /\(relay (rly_\S+)\)/)).toBeDefined()
    } finally {
      await stop(second)
    }
  }, 120_000)
})
