import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { embeddedBackend, type CliBackend } from '../cli/backends.js'
import { runCli } from '../helpers/cli.js'

describe('outbound webhooks … (CLI, embedded database)', () => {
  let backend: CliBackend
  let workspace: string
  const cli = async (args: string[], env: Record<string, string> = {}) => await runCli(args, { ...backend.env, ...env })

  beforeAll(async () => {
    backend = await embeddedBackend()
    workspace = (await cli(['workspace', 'create', '--name', 'Hooks', '--plan', 'growth'])).json.id
  })
  afterAll(async () => { await backend.close() })

  it('refuses internal targets with exit 1, unless WEBHOOKS_ALLOW_PRIVATE', async () => {
    for (const url of ['https://127.0.0.1/hook', 'https://10.0.0.8/hook', 'https://169.254.169.254/latest', 'https://localhost/hook']) {
      const refused = await cli(['webhooks', 'add', '--workspace', workspace, '--url', url])
      expect(refused.code, url).toBe(1)
      expect(refused.json.error).toMatch(/internal address/)
    }
    const allowed = await cli(['webhooks', 'add', '--workspace', workspace, '--url', 'http://127.0.0.1:9/hook', '--events', 'message.sent,message.failed'], { WEBHOOKS_ALLOW_PRIVATE: 'true' })
    expect(allowed.code).toBe(0)
    expect(allowed.json).toEqual({ id: expect.stringMatching(/^whe_/), url: 'http://127.0.0.1:9/hook', events: ['message.sent', 'message.failed'], secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) })
  }, 180_000)

  it('adds with every event type by default, lists without secrets, lists deliveries, replays, removes', async () => {
    const added = await cli(['webhooks', 'add', '--workspace', workspace, '--url', 'http://127.0.0.1:9/all'], { WEBHOOKS_ALLOW_PRIVATE: 'true' })
    expect(added.json.events).toEqual(['message.queued', 'message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.received', 'template.updated', 'campaign.completed', 'campaign.paused', 'campaign.resumed', 'flow.completed', 'contact.erased'])
    const listed = await cli(['webhooks', 'list', '--workspace', workspace])
    expect(listed.json.endpoints).toHaveLength(2)
    expect(listed.json.endpoints[1]).toEqual({ id: added.json.id, url: 'http://127.0.0.1:9/all', events: added.json.events, created_at: expect.any(String) })
    expect(listed.stdout).not.toContain('whsec_')
    expect((await cli(['webhooks', 'deliveries', '--workspace', workspace, '--status', 'failed'])).json).toEqual({ deliveries: [] })
    expect((await cli(['webhooks', 'replay', '--endpoint', added.json.id, '--since', '2020-01-01T00:00:00Z'])).json).toEqual({ ok: true, replayed: 0 })
    expect((await cli(['webhooks', 'replay', '--delivery', 'whd_nope'])).code).toBe(1)
    expect((await cli(['webhooks', 'replay', '--endpoint', added.json.id])).code).toBe(2)
    expect((await cli(['webhooks', 'add', '--workspace', workspace, '--url', 'https://example.com/x', '--events', 'message.nope'])).json.error).toMatch(/unknown event type/)
    expect((await cli(['webhooks', 'remove', '--id', added.json.id])).json).toEqual({ ok: true })
    expect((await cli(['webhooks', 'list', '--workspace', workspace])).json.endpoints).toHaveLength(1)
    expect((await cli(['webhooks', 'remove', '--id', 'whe_nope'])).code).toBe(1)
  }, 180_000)
})
