import { afterAll, describe, expect, it } from 'vitest'
import { checkTarget, isForbiddenAddress } from '../../src/events/ssrf.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { sendTestEvent } from '../../src/events/test-event.js'
import { startReceiver, type Receiver } from './receiver.js'

describe('SSRF: outgoing webhook targets', () => {
  it('refuses internal addresses and names at creation unless private targets are allowed', async () => {
    for (const url of ['https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://169.254.169.254/latest/meta-data', 'https://localhost/hook',
      'https://[::1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://[fd00::1]/', 'https://192.168.1.10/', 'https://172.16.0.5/', 'https://100.64.0.1/', 'https://0.0.0.0/']) {
      await expect(checkTarget(url, false), url).rejects.toThrow(/internal address/)
    }
    await expect(checkTarget('http://example.com/hook', false)).rejects.toThrow(/https/)
    await expect(checkTarget('ftp://example.com/hook', true)).rejects.toThrow(/https/)
    await expect(checkTarget('https://user:pw@example.com/hook', false)).rejects.toThrow(/credentials/)
    await expect(checkTarget('not a url', false)).rejects.toThrow(/valid/)
    expect((await checkTarget('https://93.184.215.14/hook', false)).href).toBe('https://93.184.215.14/hook')
    expect((await checkTarget('http://127.0.0.1:9/hook', true)).href).toBe('http://127.0.0.1:9/hook')
  })

  it('classifies addresses, IPv4-mapped forms included', () => {
    expect(['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe'].filter(address => !isForbiddenAddress(address))).toEqual([])
    expect(['8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'].filter(isForbiddenAddress)).toEqual([])
  })

  describe('at each delivery (DNS rebinding: a name that resolves to loopback by then)', () => {
    let receiver: Receiver
    // registered before useGateway, so that it runs after the gateway closed
    afterAll(async () => { await receiver?.close() })
    const ctx = useGateway({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '50' }, plan: null, setup: async () => { receiver = await startReceiver() } })

    it('refuses to connect and records why, for a name and for an IP literal', async () => {
      const workspaceId = (await ctx.gateway.app.workspaces.create('ssrf', 'growth')).id
      for (const url of [`https://localhost:${receiver.port}/hook`, `https://127.0.0.1:${receiver.port}/hook`]) {
        // stored as if it had resolved to a public address when it was added
        const endpoint = await ctx.gateway.app.webhooks.addEndpoint({ workspaceId, url, events: ['message.sent'], secret: ctx.gateway.app.cipher.encrypt('whsec_dGVzdA==') })
        const id = await sendTestEvent(ctx.gateway.app, workspaceId, endpoint.id)
        await waitFor(async () => (await ctx.gateway.app.webhooks.delivery(id))?.status === 'failed', { what: 'refused delivery' })
        expect((await ctx.gateway.app.webhooks.delivery(id))!.lastError).toMatch(/internal address/)
      }
      expect(receiver.received).toEqual([])
    })
  })
})
