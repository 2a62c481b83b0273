import { sql } from 'drizzle-orm'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { describe, expect, it, vi } from 'vitest'
import { rowsOf } from '../../db/client.js'
import scopesPlugin from '../../plugins/scopes.js'
import { SCOPES, type Scope } from '../../src/access/scopes.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope, multipart, RECIPIENT } from '../messages/helpers.js'

let sent = 0
// each send to its own recipient: the pair rate limit never has a say
const text = (extra: Record<string, unknown> = {}) => ({ to: `1555${String(4_000_000 + sent++)}`, body: 'scoped', ...extra })

describe('scoped keys: 403 insufficient_scope after the plan and before the connection (CONTRACT.md 16)', () => {
  const ctx = useGateway()
  const numbers = () => ctx.workspace.connection.phone_numbers.map(number => number.phone_number_id)

  async function keyWith (scopes: readonly Scope[], phoneNumberIds: string[] | null = null, workspaceId = ctx.workspace.workspaceId): Promise<string> {
    const { secret } = await ctx.gateway.app.keys.create(workspaceId, `scoped ${scopes.join(' ')}`, { scopes, phoneNumberIds })
    return `Bearer ${secret}`
  }
  const read = async (authorization: string) => await ctx.gateway.app.inject({ method: 'GET', url: '/api/messages.php', headers: { authorization } })

  it('gives a key every scope and any number by default', async () => {
    const [key] = await ctx.gateway.app.keys.list(ctx.workspace.workspaceId)
    expect(key).toMatchObject({ scopes: [...SCOPES], phoneNumberIds: null })
    expect((await send(ctx.gateway, text(), { authorization: ctx.workspace.authorization })).statusCode).toBe(200)
    expect((await read(ctx.workspace.authorization)).statusCode).toBe(200)
  })

  it('gives every scope to key rows written before scopes existed (the migration\'s default)', async () => {
    const { db } = ctx.gateway.app.database
    await db.execute(sql`insert into api_keys (id, workspace_id, name, prefix, secret_hash) values ('key_legacy', ${ctx.workspace.workspaceId}, 'legacy', 'obk_live_legacy0000', 'x')`)
    const [row] = rowsOf<{ scopes: unknown, phone_number_ids: unknown }>(await db.execute(sql`select scopes, phone_number_ids from api_keys where id = 'key_legacy'`))
    expect(row).toEqual({ scopes: [...SCOPES], phone_number_ids: null })
  })

  it('refuses a send without messages:send, and a read without messages:read, naming the scope', async () => {
    const reader = await keyWith(['messages:read'])
    const refused = expectEnvelope(await send(ctx.gateway, text(), { authorization: reader }), 403, 'insufficient_scope')
    expect(refused.error).toContain('messages:send')
    expect((await read(reader)).statusCode).toBe(200)

    const sender = await keyWith(['messages:send', 'usage:read'])
    expect((await send(ctx.gateway, text(), { authorization: sender })).statusCode).toBe(200)
    const unread = expectEnvelope(await read(sender), 403, 'insufficient_scope')
    expect(unread.error).toContain('messages:read')
  })

  it('judges the plan first, then the scope, then the connection, then the body', async () => {
    const free = await ctx.gateway.app.workspaces.create('free and scoped', 'free')
    expectEnvelope(await send(ctx.gateway, text(), { authorization: await keyWith(['messages:read'], null, free.id) }), 403, 'plan_upgrade_required')

    const unconnected = await ctx.gateway.app.workspaces.create('unconnected', 'growth')
    expectEnvelope(await send(ctx.gateway, text(), { authorization: await keyWith(['messages:read'], null, unconnected.id) }), 403, 'insufficient_scope')
    expectEnvelope(await send(ctx.gateway, text(), { authorization: await keyWith(['messages:send'], null, unconnected.id) }), 409, 'no_active_connection')

    const reader = await keyWith(['messages:read'])
    const file = multipart([['to', RECIPIENT]], { field: 'file', filename: 'a.txt', content: 'x' })
    for (const [payload, headers] of [[{ to: 'nobody' }, {}], ['{"to":', { 'content-type': 'application/json' }], ['hello', { 'content-type': 'text/plain' }], [file.payload, file.headers]] as const) {
      expectEnvelope(await send(ctx.gateway, payload, { authorization: reader, headers }), 403, 'insufficient_scope')
    }
  })

  it('limits a key to its numbers: the omitted phone_number_id means the first number, refused when not allowed', async () => {
    const [first, second] = numbers()
    const secondOnly = await keyWith(['messages:send'], [second])
    const before = ctx.gateway.emulator.sentMessages.length

    const omitted = expectEnvelope(await send(ctx.gateway, text(), { authorization: secondOnly }), 403, 'insufficient_scope')
    expect(omitted.error).toContain(first)
    const named = expectEnvelope(await send(ctx.gateway, text({ phone_number_id: first }), { authorization: secondOnly }), 403, 'insufficient_scope')
    expect(named.error).toContain(first)
    // refused before the body is validated: a bad body from a number the key may not use is still a 403
    expectEnvelope(await send(ctx.gateway, { to: 'nobody', phone_number_id: first }, { authorization: secondOnly }), 403, 'insufficient_scope')
    expectEnvelope(await send(ctx.gateway, text({ phone_number_id: '999' }), { authorization: secondOnly }), 403, 'insufficient_scope')
    expect(ctx.gateway.emulator.sentMessages.length).toBe(before)

    const allowed = (await send(ctx.gateway, text({ phone_number_id: second }), { authorization: secondOnly })).json()
    expect(allowed).toMatchObject({ ok: true, status: 'sent' })
    expect(ctx.gateway.emulator.sentMessages.find(message => message.wamid === allowed.wamid)?.phoneNumberId).toBe(second)
    // the body's own 422s still hold for a number the key may use
    expectEnvelope(await send(ctx.gateway, { to: 'nobody', phone_number_id: second }, { authorization: secondOnly }), 422, 'invalid_request')

    const firstOnly = await keyWith(['messages:send'], [first])
    expect((await send(ctx.gateway, text(), { authorization: firstOnly })).statusCode).toBe(200)
  })

  it('reads the scopes with the cached key row: no query of its own', async () => {
    const authorization = await keyWith(['messages:read'])
    const secret = authorization.slice('Bearer '.length)
    await ctx.gateway.app.keys.verify(secret)
    const select = vi.spyOn(ctx.gateway.app.database.db, 'select')
    try {
      expect(await ctx.gateway.app.keys.verify(secret)).toMatchObject({ scopes: ['messages:read'], phoneNumberIds: null })
      expect(select).not.toHaveBeenCalled()
    } finally {
      select.mockRestore()
    }
  })

  it('refuses a key without scopes on every /api/ route of the OpenAPI document', async () => {
    const document = (await ctx.gateway.app.inject('/docs/json')).json() as { paths: Record<string, Record<string, unknown>> }
    const routes = Object.entries(document.paths).filter(([path]) => path.startsWith('/api/'))
      .flatMap(([path, operations]) => Object.keys(operations).map(method => [method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path] as const))
    expect(routes).toEqual(expect.arrayContaining([['POST', '/api/messages.php'], ['GET', '/api/messages.php']]))
    const none = await keyWith([])
    for (const [method, url] of routes) {
      const response = await ctx.gateway.app.inject({ method, url, headers: { authorization: none, 'content-type': 'application/json' }, ...(method !== 'GET' && { payload: '{}' }) })
      expect(response.json(), `${method} ${url}`).toMatchObject({ ok: false, code: 'insufficient_scope' })
    }
  })
})

describe('config.scopes is required wherever API keys are', () => {
  async function appWith (config: Record<string, unknown>) {
    const app = Fastify({ logger: false })
    // stand-ins for the plugins the scope gate depends on
    await app.register(fp(async () => {}, { name: 'auth' }))
    await app.register(fp(async () => {}, { name: 'plan' }))
    await app.register(scopesPlugin)
    app.get('/api/new.php', { config }, async () => ({ ok: true }))
    return app
  }

  it('stops the app when a route takes API keys without naming its scopes', async () => {
    await expect(appWith({ auth: 'apiKey' }).then(async app => await app.ready())).rejects.toThrow(/GET \/api\/new\.php takes API keys but names no config\.scopes/)
  })

  it('accepts a route that names them, and a route without API keys', async () => {
    for (const config of [{ auth: 'apiKey', scopes: ['usage:read'] }, {}]) {
      const app = await appWith(config)
      await app.ready()
      await app.close()
    }
  })
})
