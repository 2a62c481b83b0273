import { afterEach, describe, expect, it, vi } from 'vitest'
import { connectWorkspace, disconnectWorkspace } from '../../src/connections/connect.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { connectedWorkspace } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from './helpers.js'

// Each send to its own recipient, so the pair rate limit never has a say.
let sent = 0
const text = () => ({ to: `1555${String(3_000_000 + sent++)}`, body: 'cache' })

describe('the send path reads keys and connections from a cache that every change drops at once', () => {
  // each test connects its own workspace
  const ctx = useGateway({ plan: null })
  afterEach(() => { vi.restoreAllMocks() })

  it('refuses a key on the request after its revocation, with its row cached', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(200)
    await ctx.gateway.app.keys.revoke(workspace.apiKeyId)
    expectEnvelope(await send(ctx.gateway, text(), { authorization: workspace.authorization }), 401, 'unauthorized')
  })

  it('answers 403 on the request after a downgrade, and sends again after an upgrade', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(200)
    await ctx.gateway.app.workspaces.setPlan(workspace.workspaceId, 'free')
    expectEnvelope(await send(ctx.gateway, text(), { authorization: workspace.authorization }), 403, 'plan_upgrade_required')
    await ctx.gateway.app.workspaces.setPlan(workspace.workspaceId, 'scale')
    expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(200)
  })

  it('answers 409 on the request after a disconnect, and sends again after a reconnect', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(200)
    await disconnectWorkspace({ stores: ctx.gateway.app }, workspace.workspaceId)
    expectEnvelope(await send(ctx.gateway, text(), { authorization: workspace.authorization }), 409, 'no_active_connection')
    const account = defaultAccount()
    await connectWorkspace(ctx.gateway.app.connectDeps, { workspaceId: workspace.workspaceId, wabaId: account.wabaId, accessToken: account.accessToken })
    expect((await send(ctx.gateway, text(), { authorization: workspace.authorization })).statusCode).toBe(200)
  })

  it('shows a refreshed throughput level at once', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    const [first] = (await ctx.gateway.app.connections.active(workspace.workspaceId))!.numbers
    expect(first.throughputLevel).toBe('STANDARD')
    await ctx.gateway.app.connections.updateNumber(first.id, { id: first.phoneNumberId, display_phone_number: first.displayPhoneNumber, throughput: { level: 'HIGH' } })
    expect((await ctx.gateway.app.connections.active(workspace.workspaceId))!.numbers[0].throughputLevel).toBe('HIGH')
  })

  it('reads neither the key nor the connection from the database while they are cached', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    const secret = workspace.authorization.slice('Bearer '.length)
    await ctx.gateway.app.keys.verify(secret)
    await ctx.gateway.app.connections.active(workspace.workspaceId)
    const select = vi.spyOn(ctx.gateway.app.database.db, 'select')
    expect(await ctx.gateway.app.keys.verify(secret)).toMatchObject({ workspaceId: workspace.workspaceId, plan: 'growth' })
    expect(await ctx.gateway.app.connections.active(workspace.workspaceId)).toMatchObject({ connection: { workspaceId: workspace.workspaceId } })
    expect(select).not.toHaveBeenCalled()
  })

  it('still compares the secret on every request: a wrong secret with a cached prefix is refused', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    const secret = workspace.authorization.slice('Bearer '.length)
    expect(await ctx.gateway.app.keys.verify(secret)).toBeDefined()
    const forged = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A')
    expect(await ctx.gateway.app.keys.verify(forged)).toBeUndefined()
  })

  it('writes last_used_at once, not on every request served from the cached row', async () => {
    const workspace = await connectedWorkspace(ctx.gateway)
    const secret = workspace.authorization.slice('Bearer '.length)
    const update = vi.spyOn(ctx.gateway.app.database.db, 'update')
    for (let i = 0; i < 5; i++) await ctx.gateway.app.keys.verify(secret)
    expect(update).toHaveBeenCalledTimes(1)
    // written off the request's path (src/store/key-touches.ts): it lands a moment later
    await waitFor(async () => (await ctx.gateway.app.keys.get(workspace.apiKeyId))?.lastUsedAt instanceof Date, { what: 'last_used_at' })
  })
})
