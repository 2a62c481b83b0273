import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RELAY_FIELDS } from '../../src/relay/fields.js'
import { embeddedBackend, type CliBackend } from '../cli/backends.js'
import { runCli } from '../helpers/cli.js'

// CONTRACT.md 18: outbound relays add | list | remove | deliveries | replay. No connection is needed to add one.
describe('outbound relays … (CLI, embedded database)', () => {
  let backend: CliBackend
  let workspace: string
  const cli = async (args: string[], env: Record<string, string> = {}) => await runCli(args, { ...backend.env, ...env })

  beforeAll(async () => {
    backend = await embeddedBackend()
    workspace = (await cli(['workspace', 'create', '--name', 'Relays', '--plan', 'growth'])).json.id
  })
  afterAll(async () => { await backend.close() })

  it('adds (defaults printed as what they mean; own secret shown once), lists, lists deliveries, replays, removes', async () => {
    const app = await cli(['relays', 'add', '--workspace', workspace, '--url', 'https://127.0.0.1/chatwoot'])
    expect(app.code).toBe(1)
    expect(app.json.error).toMatch(/internal address/)
    const added = await cli(['relays', 'add', '--workspace', workspace, '--url', 'http://127.0.0.1:9/chatwoot'], { WEBHOOKS_ALLOW_PRIVATE: 'true' })
    expect(added.json).toEqual({ id: expect.stringMatching(/^rly_/), url: 'http://127.0.0.1:9/chatwoot', fields: [...RELAY_FIELDS], phone_number_ids: null, signing: 'app', created_at: expect.any(String) })
    const own = await cli(['relays', 'add', '--workspace', workspace, '--url', 'http://127.0.0.1:9/n8n', '--fields', 'messages,user_preferences', '--phone-number-ids', '1234,5678', '--secret', 'own'], { WEBHOOKS_ALLOW_PRIVATE: 'true' })
    expect(own.json).toMatchObject({ fields: ['messages', 'user_preferences'], phone_number_ids: ['1234', '5678'], signing: 'own', secret: expect.stringMatching(/^rls_/) })
    const listed = await cli(['relays', 'list', '--workspace', workspace])
    expect(listed.json.relays.map((relay: { id: string }) => relay.id)).toEqual([added.json.id, own.json.id])
    expect(listed.stdout).not.toContain('rls_')
    expect((await cli(['relays', 'add', '--workspace', workspace, '--url', 'https://example.com/x', '--fields', 'nope'])).json.error).toMatch(/unknown field/)
    expect((await cli(['relays', 'deliveries', '--workspace', workspace, '--status', 'failed'])).json).toEqual({ deliveries: [] })
    expect((await cli(['relays', 'replay', '--relay', added.json.id, '--since', '2020-01-01T00:00:00Z'])).json).toEqual({ ok: true, replayed: 0 })
    expect((await cli(['relays', 'replay', '--delivery', 'rld_nope'])).code).toBe(1)
    expect((await cli(['relays', 'replay', '--relay', added.json.id])).code).toBe(2)
    expect((await cli(['relays', 'remove', '--id', added.json.id])).json).toEqual({ ok: true })
    expect((await cli(['relays', 'list', '--workspace', workspace])).json.relays).toHaveLength(1)
    expect((await cli(['relays', 'remove', '--id', 'rly_nope'])).code).toBe(1)
    const audit = (await cli(['audit', 'list', '--workspace', workspace])).json
    expect(JSON.stringify(audit)).toContain('relay.added')
    expect(JSON.stringify(audit)).toContain('relay.removed')
  }, 180_000)
})
