import { describe, expect, it } from 'vitest'
import { RELAY_FIELDS } from '../../src/relay/fields.js'
import { useGateway } from '../helpers/use-gateway.js'
import { ownWorkspace } from './helpers.js'

// CONTRACT.md 18: POST / GET / DELETE /api/relays.php, scope relays:write; audited.
describe('relay: /api/relays.php', () => {
  const ctx = useGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'false' }, plan: null })
  const call = async (authorization: string, method: 'GET' | 'POST' | 'DELETE', payload?: object, query = '') =>
    await ctx.gateway.app.inject({ method, url: `/api/relays.php${query}`, headers: { authorization }, ...(payload && { payload }) })

  it('adds with the defaults printed as what they mean, the own secret shown this once; lists without secrets; removes (audited)', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const app = await call(workspace.authorization, 'POST', { url: 'https://93.184.215.14/chatwoot' })
    expect(app.statusCode).toBe(201)
    expect(app.json()).toEqual({ ok: true, relay: { id: expect.stringMatching(/^rly_/), url: 'https://93.184.215.14/chatwoot', fields: [...RELAY_FIELDS], phone_number_ids: null, signing: 'app', created_at: expect.any(String) } })
    const own = await call(workspace.authorization, 'POST', { url: 'https://93.184.215.14/n8n', fields: ['messages'], phone_number_ids: [workspace.phoneNumberIds[0]], signing: 'own' })
    expect(own.statusCode).toBe(201)
    expect(own.json().relay).toMatchObject({ fields: ['messages'], phone_number_ids: [workspace.phoneNumberIds[0]], signing: 'own', secret: expect.stringMatching(/^rls_/) })
    const listed = await call(workspace.authorization, 'GET')
    expect(listed.json().relays.map((relay: { id: string }) => relay.id)).toEqual([app.json().relay.id, own.json().relay.id])
    expect(listed.body).not.toContain('rls_')
    expect((await call(workspace.authorization, 'DELETE', undefined, `?id=${app.json().relay.id}`)).json()).toEqual({ ok: true })
    expect((await call(workspace.authorization, 'DELETE', undefined, `?id=${app.json().relay.id}`)).statusCode).toBe(404)
    expect((await call(workspace.authorization, 'GET')).json().relays).toHaveLength(1)
    const actions = (await ctx.gateway.app.auditLog.page(workspace.workspaceId, { limit: 10 })).map(row => [row.action, row.targetKind, row.actorKind])
    expect(actions).toEqual(expect.arrayContaining([['relay.added', 'relay', 'key'], ['relay.removed', 'relay', 'key']]))
    expect(actions.filter(([action]) => action === 'relay.added')).toHaveLength(2)
  })

  it('refuses a missing or internal url, an unknown field or signing with 422 naming the field', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    for (const [body, field] of [
      [{}, 'url'], [{ url: 'http://93.184.215.14/x' }, 'url'], [{ url: 'https://127.0.0.1/x' }, 'url'], [{ url: 'https://169.254.169.254/latest' }, 'url'],
      [{ url: 'https://93.184.215.14/x', fields: ['messages', 'nope'] }, 'fields'], [{ url: 'https://93.184.215.14/x', signing: 'mine' }, 'signing']
    ] as const) {
      const answer = await call(workspace.authorization, 'POST', body)
      expect(answer.statusCode, JSON.stringify(body)).toBe(422)
      expect(answer.json(), JSON.stringify(body)).toMatchObject({ ok: false, code: 'invalid_request', field })
    }
    expect((await call(workspace.authorization, 'GET')).json().relays).toEqual([])
  })

  it('keeps each workspace to its own relays, and needs relays:write for every method', async () => {
    const [one, two] = [await ownWorkspace(ctx.gateway), await ownWorkspace(ctx.gateway)]
    const added = (await call(one.authorization, 'POST', { url: 'https://93.184.215.14/one' })).json().relay
    expect((await call(two.authorization, 'GET')).json().relays).toEqual([])
    expect((await call(two.authorization, 'DELETE', undefined, `?id=${added.id}`)).json()).toMatchObject({ ok: false, code: 'not_found' })
    const { secret } = await ctx.gateway.app.keys.create(one.workspaceId, 'no relays', { scopes: ['messages:send'] })
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const answer = await call(`Bearer ${secret}`, method, method === 'POST' ? { url: 'https://93.184.215.14/x' } : undefined, method === 'DELETE' ? `?id=${added.id}` : '')
      expect(answer.statusCode, method).toBe(403)
      expect(answer.json(), method).toMatchObject({ code: 'insufficient_scope' })
    }
    expect((await call(one.authorization, 'GET')).json().relays).toHaveLength(1)
  })
})
