import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { graph, startCallback, subscribe, WABA, type CallbackServer } from './helpers.js'

describe('emulator: POST /{waba-id}/subscribed_apps', () => {
  let emulator: Emulator
  let callback: CallbackServer
  beforeAll(async () => {
    emulator = await startEmulator()
    callback = await startCallback(emulator.appSecret, 'verify-me')
  })
  beforeEach(async () => {
    emulator.reset()
    await graph(emulator, 'DELETE', `/${WABA}/subscribed_apps`)
  })
  afterAll(async () => {
    await emulator.close()
    await callback.close()
  })

  it('runs the verification handshake, then stores the callback', async () => {
    const response = await subscribe(emulator, callback.url, 'verify-me')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ success: true })
    const handshake = callback.handshakes.at(-1)
    expect(handshake?.get('hub.mode')).toBe('subscribe')
    expect(handshake?.get('hub.verify_token')).toBe('verify-me')
    expect(handshake?.get('hub.challenge')).toMatch(/^\d+$/)
    expect(emulator.callbackFor(WABA)).toBe(callback.url)

    const listed = await graph(emulator, 'GET', `/${WABA}/subscribed_apps`)
    expect(listed.body).toEqual({
      data: [{ whatsapp_business_api_data: { id: expect.any(String), link: expect.any(String), name: expect.any(String) }, override_callback_uri: callback.url }]
    })
  })

  it('refuses the callback when it answers the handshake with 403', async () => {
    const response = await subscribe(emulator, callback.url, 'wrong-token')
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe(2200)
    expect(response.body.error.message).toBe('(#2200) Callback verification failed with the following errors: HTTP Status Code = 403; HTTP Message = Forbidden')
    expect(emulator.callbackFor(WABA)).toBeUndefined()
  })

  it('refuses a callback that does not echo the challenge', async () => {
    const liar = createServer((_request, response) => response.end('not-the-challenge'))
    await new Promise<void>(resolve => liar.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(liar.address() as AddressInfo).port}/hook`
    try {
      const response = await subscribe(emulator, url)
      expect(response.body.error.code).toBe(2200)
      expect(response.body.error.message).toContain('received="not-the-challenge"')
    } finally {
      liar.close()
    }
  })

  it('says so when the callback is unreachable', async () => {
    const response = await subscribe(emulator, 'http://127.0.0.1:1/webhooks')
    expect(response.status).toBe(400)
    expect(response.body.error.message).toContain("Couldn't connect to server; HTTP Status Code = 0")
  })

  it('subscribes without an override, which clears an earlier one', async () => {
    await subscribe(emulator, callback.url)
    const response = await graph(emulator, 'POST', `/${WABA}/subscribed_apps`)
    expect(response.body).toEqual({ success: true })
    expect(emulator.callbackFor(WABA)).toBeUndefined()
    const listed = await graph(emulator, 'GET', `/${WABA}/subscribed_apps`)
    expect(listed.body.data[0].override_callback_uri).toBeUndefined()
  })

  it('needs a verify_token with an override and a WABA id', async () => {
    const noToken = await graph(emulator, 'POST', `/${WABA}/subscribed_apps`, { body: { override_callback_uri: callback.url } })
    expect(noToken.body.error).toMatchObject({ code: 100, error_data: { details: 'The parameter verify_token is required.' } })
    const onNumber = await graph(emulator, 'POST', '/106540352242922/subscribed_apps')
    expect(onNumber.body.error).toMatchObject({ code: 100, error_subcode: 33 })
  })
})
