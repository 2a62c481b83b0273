import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { expectEnvelope, form, multipart, RECIPIENT, URL } from './helpers.js'

const TEXT = { to: RECIPIENT, body: 'Hello' }

describe('POST /api/messages.php: who may send (401, 403, 409) and in which order', () => {
  let gateway: TestGateway
  let growth: ConnectedWorkspace
  let free: ConnectedWorkspace
  let unconnected: { workspaceId: string, authorization: string }

  beforeAll(async () => {
    gateway = await startGateway()
    growth = await connectedWorkspace(gateway, 'growth')
    free = await connectedWorkspace(gateway, 'free')
    const workspace = await gateway.app.workspaces.create('no connection', 'scale')
    const { secret } = await gateway.app.keys.create(workspace.id, 'test')
    unconnected = { workspaceId: workspace.id, authorization: `Bearer ${secret}` }
  })
  afterAll(async () => { await gateway?.close() })

  it('sends with a valid key on the growth and scale plans', async () => {
    expect((await send(gateway, TEXT, { authorization: growth.authorization })).json()).toMatchObject({ ok: true, status: 'sent' })
    const scale = await connectedWorkspace(gateway, 'scale')
    expect((await send(gateway, TEXT, { authorization: scale.authorization })).statusCode).toBe(200)
  })

  it.each([
    ['no Authorization header', undefined],
    ['an empty header', ''],
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['Bearer without a key', 'Bearer '],
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key of the right shape', `Bearer obk_live_AAAAAAAAAA_${'x'.repeat(43)}`]
  ])('answers 401 unauthorized for %s', async (_case, authorization) => {
    const response = await send(gateway, TEXT, { ...(authorization !== undefined && { headers: { authorization } }) })
    expectEnvelope(response, 401, 'unauthorized')
    expect(response.headers['www-authenticate']).toBe('Bearer')
  })

  it('accepts the scheme in any case', async () => {
    const secret = growth.authorization.slice('Bearer '.length)
    expect((await send(gateway, TEXT, { headers: { authorization: `bearer ${secret}` } })).statusCode).toBe(200)
  })

  it('refuses a key from the request after its revocation', async () => {
    const { key, secret } = await gateway.app.keys.create(growth.workspaceId, 'short-lived')
    expect((await send(gateway, TEXT, { authorization: `Bearer ${secret}` })).statusCode).toBe(200)
    await gateway.app.keys.revoke(key.id)
    expectEnvelope(await send(gateway, TEXT, { authorization: `Bearer ${secret}` }), 401, 'unauthorized')
  })

  it.each(['free', 'starter'] as const)('answers 403 plan_upgrade_required on the %s plan', async plan => {
    const workspace = plan === 'free' ? free : await connectedWorkspace(gateway, plan)
    expectEnvelope(await send(gateway, TEXT, { authorization: workspace.authorization }), 403, 'plan_upgrade_required')
  })

  it('reads the plan at every request', async () => {
    const workspace = await connectedWorkspace(gateway, 'free')
    expect((await send(gateway, TEXT, { authorization: workspace.authorization })).statusCode).toBe(403)
    await gateway.app.workspaces.setPlan(workspace.workspaceId, 'growth')
    expect((await send(gateway, TEXT, { authorization: workspace.authorization })).statusCode).toBe(200)
  })

  it('answers 409 no_active_connection without a connection, and after a disconnect', async () => {
    expectEnvelope(await send(gateway, TEXT, { authorization: unconnected.authorization }), 409, 'no_active_connection')
    const workspace = await connectedWorkspace(gateway, 'growth')
    await gateway.app.connections.deactivate(workspace.workspaceId)
    expectEnvelope(await send(gateway, TEXT, { authorization: workspace.authorization }), 409, 'no_active_connection')
  })

  describe('check order: the caller is judged before the body', () => {
    const json = { 'content-type': 'application/json' }
    const oversized = JSON.stringify({ to: RECIPIENT, body: 'x'.repeat(300_000) })
    const withFile = multipart([['to', RECIPIENT]], { field: 'file', filename: 'a.txt', content: 'x' })
    const badBodies: [string, string | Buffer | object, Record<string, string>][] = [
      ['an invalid body', { to: 'nobody' }, {}],
      ['malformed JSON', '{"to":', json],
      ['an empty body', '', json],
      ['an unsupported content type', 'hello', { 'content-type': 'text/plain' }],
      ['a body over the limit', oversized, json],
      ['a multipart file', withFile.payload, withFile.headers]
    ]

    it.each(badBodies)('a bad key with %s gets 401', async (_case, payload, headers) => {
      expectEnvelope(await send(gateway, payload, { headers: { ...headers, authorization: 'Bearer wrong' } }), 401, 'unauthorized')
    })

    it.each(badBodies)('the free plan with %s gets 403', async (_case, payload, headers) => {
      expectEnvelope(await send(gateway, payload, { authorization: free.authorization, headers }), 403, 'plan_upgrade_required')
    })

    it.each(badBodies)('no connection with %s gets 409', async (_case, payload, headers) => {
      expectEnvelope(await send(gateway, payload, { authorization: unconnected.authorization, headers }), 409, 'no_active_connection')
    })

    it('holds over real HTTP too: a large body from a bad key or a free plan is answered without being read', async () => {
      const post = async (authorization: string) => {
        const response = await fetch(`${gateway.url}${URL}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: 'x'.repeat(2_000_000) })
        return { status: response.status, body: await response.json() as Record<string, unknown> }
      }
      expect(await post('Bearer wrong')).toMatchObject({ status: 401, body: { code: 'unauthorized' } })
      expect(await post(free.authorization)).toMatchObject({ status: 403, body: { code: 'plan_upgrade_required' } })
      expect(await post(growth.authorization)).toMatchObject({ status: 413, body: { code: 'payload_too_large' } })
    })

    it('a valid caller then gets the body checks: 422, 415, 413', async () => {
      const authorization = growth.authorization
      expectEnvelope(await send(gateway, { to: 'nobody' }, { authorization }), 422, 'invalid_request')
      expectEnvelope(await send(gateway, 'hello', { authorization, headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type')
      expectEnvelope(await send(gateway, oversized, { authorization, headers: json }), 413, 'payload_too_large')
    })

    it('nothing is logged or sent for a refused caller', async () => {
      const before = gateway.emulator.sentMessages.length
      await send(gateway, TEXT, { authorization: free.authorization })
      await send(gateway, TEXT, { authorization: unconnected.authorization })
      expect(gateway.emulator.sentMessages.length).toBe(before)
      expect(await gateway.app.messages.list(free.workspaceId)).toEqual([])
      expect(await gateway.app.messages.list(unconnected.workspaceId)).toEqual([])
    })
  })

  describe('phone_number_id', () => {
    it("sends from the workspace's first number by default and from another active number on request", async () => {
      const [first, second] = growth.connection.phone_numbers.map(number => number.phone_number_id)
      const byDefault = (await send(gateway, TEXT, { authorization: growth.authorization })).json()
      expect(gateway.emulator.sentMessages.find(sent => sent.wamid === byDefault.wamid)?.phoneNumberId).toBe(first)
      const chosen = (await send(gateway, { ...TEXT, phone_number_id: second }, { authorization: growth.authorization })).json()
      expect(gateway.emulator.sentMessages.find(sent => sent.wamid === chosen.wamid)?.phoneNumberId).toBe(second)
      const [record] = await gateway.app.messages.list(growth.workspaceId, { limit: 1 })
      expect(record.phoneNumberId).toBe(second)
    })

    it("refuses another workspace's number and an unknown one with 422 naming phone_number_id", async () => {
      gateway.emulator.addAccount({
        wabaId: '300000000000001',
        accessToken: 'other-token',
        phoneNumbers: [{ id: '300000000000002', displayPhoneNumber: '+1 555-000-0002', verifiedName: 'Other' }],
        templates: []
      })
      const { connectWorkspace } = await import('../../src/connections/connect.js')
      const other = await gateway.app.workspaces.create('other', 'growth')
      await connectWorkspace(gateway.app.connectDeps, { workspaceId: other.id, wabaId: '300000000000001', accessToken: 'other-token' })
      for (const phoneNumberId of ['300000000000002', '999']) {
        const body = expectEnvelope(await send(gateway, { ...TEXT, phone_number_id: phoneNumberId }, { authorization: growth.authorization }), 422, 'invalid_request')
        expect(body.field).toBe('phone_number_id')
      }
    })
  })

  describe('no CORS', () => {
    it('answers a preflight with 405 and no CORS headers', async () => {
      const response = await gateway.app.inject({
        method: 'OPTIONS',
        url: URL,
        headers: { origin: 'https://example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' }
      })
      expectEnvelope(response, 405, 'method_not_allowed')
      expect(response.headers.allow).toBe('GET, HEAD, POST')
      expect(Object.keys(response.headers).filter(name => name.startsWith('access-control-'))).toEqual([])
    })

    it('sends no CORS headers on a cross-origin POST', async () => {
      const response = await send(gateway, TEXT, { authorization: growth.authorization, headers: { origin: 'https://example.com' } })
      expect(response.statusCode).toBe(200)
      expect(Object.keys(response.headers).filter(name => name.startsWith('access-control-'))).toEqual([])
    })

    it('answers DELETE with 405 naming GET and POST, and a path without .php with 404', async () => {
      const refused = await gateway.app.inject({ method: 'DELETE', url: URL })
      expectEnvelope(refused, 405, 'method_not_allowed')
      expect(refused.headers.allow).toMatch(/GET.*POST|POST.*GET/)
      expectEnvelope(await gateway.app.inject({ method: 'POST', url: '/api/messages', payload: TEXT }), 404, 'not_found')
    })
  })

  it('serves the OpenAPI document generated from the route schema at /docs', async () => {
    const ui = await gateway.app.inject('/docs')
    expect(ui.statusCode).toBeLessThan(400)
    const document = (await gateway.app.inject('/docs/json')).json()
    const operation = document.paths['/api/messages.php'].post
    expect(Object.keys(operation.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'])
    // exactly one of to and recipient (CONTRACT.md 16): neither is required on its own
    const body = operation.requestBody.content['application/json'].schema
    expect(body.required ?? []).not.toContain('to')
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['to', 'recipient']))
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '4XX', '5XX']))
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(Object.keys(document.paths)).toContain('/api/messages.php')
    expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]))
    expect(operation.responses['200'].content['application/json'].schema.required).toEqual(expect.arrayContaining(['id', 'wamid']))
    expect(Object.keys(operation.responses['200'].headers)).toEqual(['Idempotent-Replayed'])
    const read = document.paths['/api/messages.php'].get
    expect(read.parameters.map((parameter: { name: string }) => parameter.name).sort())
      .toEqual(['campaign_id', 'client_reference', 'cursor', 'id', 'limit', 'recipient_user_id', 'since', 'status', 'to', 'wamid'])
    expect(Object.keys(read.responses['200'].content['application/json'].schema.properties)).toEqual(['ok', 'message', 'messages', 'next_cursor'])
  })

  it('accepts form posts of a valid caller (sanity check of the scoped parsers)', async () => {
    const { headers, payload } = form(`to=${RECIPIENT}&body=Hi`)
    expect((await send(gateway, payload, { authorization: growth.authorization, headers })).statusCode).toBe(200)
  })
})
