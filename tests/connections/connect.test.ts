import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { connections } from '../../db/schema.js'
import { connectWorkspace, disconnectWorkspace, registerWebhook, syncWorkspaceTemplates } from '../../src/connections/connect.js'
import { UpstreamError } from '../../src/upstream/errors.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'

describe('connecting a number', () => {
  // each test connects its own workspaces
  const ctx = useGateway({ plan: null })
  const account = defaultAccount()

  async function newWorkspace () {
    return await ctx.gateway.app.workspaces.create('acme', 'growth')
  }

  it('stores the numbers in the upstream\'s order and the token encrypted, and registers the webhook through the handshake', async () => {
    const { app, emulator } = ctx.gateway
    const workspace = await newWorkspace()
    const result = await connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })

    expect(result.phone_numbers).toEqual(account.phoneNumbers.map(number => ({ phone_number_id: number.id, display_phone_number: number.displayPhoneNumber })))
    expect(result.webhook_registered).toBe(true)
    expect(result.templates).toBe(account.templates.length)
    expect(emulator.callbackFor(account.wabaId)).toBe(`${ctx.gateway.url}/webhooks/whatsapp`)

    const active = await app.connections.active(workspace.id)
    expect(active!.numbers.map(number => number.phoneNumberId)).toEqual(account.phoneNumbers.map(number => number.id))
    expect(active!.numbers[0]).toMatchObject({ position: 0, throughputLevel: 'STANDARD', qualityRating: 'GREEN' })
    const [row] = await app.database.db.select().from(connections).where(eq(connections.id, result.connection_id))
    expect(row.accessToken).not.toContain(account.accessToken)
    expect(app.cipher.decrypt(row.accessToken)).toBe(account.accessToken)

    const registration = emulator.requests.find(request => request.method === 'POST' && request.path.endsWith('/subscribed_apps'))
    expect(registration?.body).toEqual({ override_callback_uri: `${ctx.gateway.url}/webhooks/whatsapp`, verify_token: app.webhookVerifyToken })
  })

  it('reports a failed handshake (wrong verify token), keeps the connection, and registers on retry', async () => {
    const { app } = ctx.gateway
    const workspace = await newWorkspace()
    const result = await connectWorkspace({ ...app.connectDeps, verifyToken: 'not-the-servers-token' }, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
    expect(result.webhook_registered).toBe(false)
    expect(result.webhook_error).toMatch(/2200|verification/i)
    const active = await app.connections.active(workspace.id)
    expect(active?.connection).toMatchObject({ status: 'active', webhookRegistered: false })
    expect((await app.connections.unregistered()).map(connection => connection.id)).toContain(result.connection_id)

    // what the server's retry loop does for every unregistered connection
    expect(await registerWebhook(app.connectDeps, active!.connection)).toBeNull()
    expect((await app.connections.active(workspace.id))?.connection).toMatchObject({ webhookRegistered: true, webhookError: null })
  })

  it('answers the handshake only with the right token', async () => {
    const base = `${ctx.gateway.url}/webhooks/whatsapp?hub.mode=subscribe&hub.challenge=1158201444`
    const right = await fetch(`${base}&hub.verify_token=${encodeURIComponent(ctx.gateway.app.webhookVerifyToken)}`)
    expect(right.status).toBe(200)
    expect(right.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await right.text()).toBe('1158201444')
    const wrong = await fetch(`${base}&hub.verify_token=nope`)
    expect(wrong.status).toBe(403)
    expect(await wrong.json()).toMatchObject({ ok: false, code: 'forbidden' })
  })

  it('syncs every page of templates', async () => {
    const { app, emulator } = ctx.gateway
    const workspace = await newWorkspace()
    await connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
    const many = Array.from({ length: 250 }, (_, index) => ({ name: `bulk_${String(index).padStart(3, '0')}`, language: 'en_US', status: 'APPROVED', category: 'UTILITY' }))
    emulator.setTemplates(account.wabaId, many)
    const before = emulator.requests.length
    expect(await syncWorkspaceTemplates(app.connectDeps, workspace.id)).toBe(250)
    const pages = emulator.requests.slice(before).filter(request => request.path.endsWith('/message_templates'))
    expect(pages.length).toBe(3)
    expect((await app.templates.list(workspace.id)).map(template => template.name)).toEqual(many.map(template => template.name))
  })

  it('fails with the upstream\'s message on a wrong access token, storing nothing', async () => {
    const { app } = ctx.gateway
    const workspace = await newWorkspace()
    const attempt = connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: 'wrong-token' })
    await expect(attempt).rejects.toBeInstanceOf(UpstreamError)
    await expect(attempt).rejects.toMatchObject({ details: { code: 190 } })
    expect(await app.connections.active(workspace.id)).toBeUndefined()
  })

  it('disconnect makes the connection inactive', async () => {
    const { app } = ctx.gateway
    const workspace = await newWorkspace()
    await connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
    await disconnectWorkspace(app.connectDeps, workspace.id)
    expect(await app.connections.active(workspace.id)).toBeUndefined()
    await expect(disconnectWorkspace(app.connectDeps, workspace.id)).rejects.toMatchObject({ code: 'no_active_connection' })
  })
})
