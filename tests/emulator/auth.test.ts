import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { graph, NUMBER, send, text, WABA } from './helpers.js'

describe('emulator: tokens, ids and the Graph error envelope', () => {
  let emulator: Emulator
  beforeAll(async () => {
    const other = { ...defaultAccount(), wabaId: '200000000000001', accessToken: 'other-token', phoneNumbers: [], templates: [] }
    emulator = await startEmulator({ accounts: [defaultAccount(), other] })
  })
  beforeEach(() => emulator.reset())
  afterAll(() => emulator.close())

  it('refuses a request without a token with 401 and code 190', async () => {
    const response = await send(emulator, text('15551234567'), { token: null })
    expect(response.status).toBe(401)
    expect(response.body.error).toMatchObject({
      message: 'Invalid OAuth access token - Cannot parse access token',
      type: 'OAuthException',
      code: 190
    })
    expect(response.body.error.fbtrace_id).toMatch(/^[\w-]{23}$/)
  })

  it('refuses an unknown token and a token of another WABA', async () => {
    const unknown = await graph(emulator, 'GET', `/${WABA}/phone_numbers`, { token: 'garbage' })
    const foreign = await graph(emulator, 'GET', `/${WABA}/phone_numbers`, { token: 'other-token' })
    expect([unknown.status, unknown.body.error.code]).toEqual([401, 190])
    expect([foreign.status, foreign.body.error.code]).toEqual([401, 190])
    expect(foreign.body.error.message).toMatch(/^Error validating access token/)
    expect(emulator.stats.errors[190]).toBe(2)
  })

  it('answers an unknown object id with code 100, subcode 33', async () => {
    const response = await send(emulator, text('15551234567'), {}, '999999')
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 100, error_subcode: 33, type: 'OAuthException' })
    expect(response.body.error.message).toContain("Unsupported post request. Object with ID '999999' does not exist")
    expect(response.body.error.error_data.messaging_product).toBe('whatsapp')
  })

  it('does not take a WABA id for a phone number id', async () => {
    const response = await send(emulator, text('15551234567'), {}, WABA)
    expect(response.body.error).toMatchObject({ code: 100, error_subcode: 33 })
  })

  it('accepts the token as access_token query parameter', async () => {
    const response = await graph(emulator, 'GET', `/${NUMBER}?access_token=sandbox-access-token`, { token: null })
    expect(response.status).toBe(200)
    expect(response.body.id).toBe(NUMBER)
  })

  it('records every request without the base path', async () => {
    await send(emulator, text('15551234567', 'recorded'))
    await graph(emulator, 'GET', `/${WABA}/message_templates?limit=2`)
    expect(emulator.requests.map(r => [r.method, r.path])).toEqual([
      ['POST', `/${NUMBER}/messages`],
      ['GET', `/${WABA}/message_templates`]
    ])
    expect(emulator.requests[0].body).toMatchObject({ text: { body: 'recorded' } })
    expect(emulator.requests[0].headers.authorization).toBe('Bearer sandbox-access-token')
    expect(emulator.requests[1].query).toEqual({ limit: '2' })
  })

  it('answers unknown paths with a Graph error', async () => {
    const response = await graph(emulator, 'GET', `/${WABA}/nothing_here`)
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe(2500)
  })
})
