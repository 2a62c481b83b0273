import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/store/ids.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { Browser, userIn } from './helpers.js'

describe('dashboard pages: content, escaping, filters, headers and assets', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: Browser
  const hostile = '<img src=x onerror=alert(1)>'

  const log = async (recipient: string, body: string) => {
    const record = (await gateway.app.messages.create({
      id: newId('msg'), workspaceId: workspace.workspaceId, apiKeyId: null, phoneNumberId: workspace.connection.phone_numbers[0].phone_number_id, recipient, type: 'text', payload: { text: { body } }
    })).record
    return record
  }

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway, 'starter')
    await gateway.app.database.db.execute(`update workspaces set name = '${hostile.replace(/'/g, "''")}' where id = '${workspace.workspaceId}'`)
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
  })
  afterAll(async () => { await gateway.close() })

  it('shows the plan with a clear note that API access needs Growth, and the numbers with quality, throughput and tier', async () => {
    const page = await browser.get('/dashboard')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('API access needs the Growth plan')
    expect(page.body).toContain('Starter plan')
    for (const text of ['+1 555-078-3881', '106540352242923', 'data-status="GREEN"', 'Standard · 80 msg/s', '2K conversations / 24 h', 'registered']) {
      expect(page.body).toContain(text)
    }
    expect((await browser.get('/dashboard/keys')).body).toContain('API access needs the Growth plan')
  })

  it('escapes every value a user or the upstream controls', async () => {
    const record = await log('15551230000', hostile)
    await gateway.app.inbound.insert({ workspaceId: workspace.workspaceId, phoneNumberId: '106540352242922', wamid: 'wamid.IN1', from: '15557770000', type: 'text', payload: { text: { body: hostile } }, receivedAt: new Date() })
    const pages = [
      await browser.get('/dashboard'),
      await browser.get(`/dashboard/messages/${record.id}`),
      await browser.get('/dashboard/inbound'),
      await browser.get(`/dashboard/messages?q=${encodeURIComponent(hostile)}`)
    ]
    for (const page of pages) {
      expect(page.body).not.toContain('<img src=x')
      expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;')
    }
  })

  it('shows a message\'s client_reference and Idempotency-Key, escaped', async () => {
    const pending = {
      id: newId('msg'), workspaceId: workspace.workspaceId, apiKeyId: null, phoneNumberId: workspace.connection.phone_numbers[0].phone_number_id,
      recipient: '15551239999', type: 'text', payload: { text: { body: 'keyed' } }, clientReference: 'order <42>'
    }
    const record = (await gateway.app.messages.create(pending, { key: { key: 'retry-"7"', fingerprint: 'f', ttlMs: 60_000 } }))?.record
    const page = (await browser.get(`/dashboard/messages/${record!.id}`)).body
    expect(page).toContain('<dt>Client reference</dt><dd><code>order &lt;42&gt;</code></dd>')
    expect(page).toContain('<dt>Idempotency key</dt><dd><code>retry-&quot;7&quot;</code></dd>')
    const unkeyed = (await browser.get(`/dashboard/messages/${(await log('15551238888', 'plain')).id}`)).body
    expect(unkeyed).toContain('<dt>Idempotency key</dt><dd>—</dd>')
  })

  it('filters the log by status and by recipient, wamid or id, newest first, and pages through it', async () => {
    const first = await log('15550001111', 'one')
    const second = await log('15550002222', 'two')
    await gateway.app.messages.markSent(second.id, { wamid: 'wamid.PAGES2', attempts: 1 })
    const rowsOf = (html: string) => [...html.matchAll(/<tr data-id="(msg_[^"]+)"/g)].map(match => match[1])

    expect(rowsOf((await browser.get('/dashboard/messages')).body).slice(0, 2)).toEqual([second.id, first.id])
    expect(rowsOf((await browser.get('/dashboard/messages?status=sent')).body)).toEqual([second.id])
    expect(rowsOf((await browser.get('/dashboard/messages?q=%2B1%20555%20000%201111')).body)).toEqual([first.id])
    expect(rowsOf((await browser.get('/dashboard/messages?q=wamid.PAGES2')).body)).toEqual([second.id])
    expect(rowsOf((await browser.get(`/dashboard/messages?q=${first.id}`)).body)).toEqual([first.id])
    expect(rowsOf((await browser.get(`/dashboard/messages?before=${second.id}`)).body)[0]).toBe(first.id)
    expect((await browser.get('/dashboard/messages?status=lost')).statusCode).toBe(422)

    const live = await browser.get('/dashboard/messages.json?status=sent')
    expect(live.json()).toEqual({ ok: true, messages: [expect.objectContaining({ id: second.id, status: 'sent', to: '+15550002222', wamid: 'wamid.PAGES2', source: 'Dashboard', href: `/dashboard/messages/${second.id}` })] })
    const detail = await browser.get(`/dashboard/messages/${second.id}/status`)
    expect(detail.json()).toMatchObject({ ok: true, message: { id: second.id, status: 'sent' } })
    // the history as the API tells it, ending where the record stands
    expect(detail.json().history.at(-1)).toMatchObject({ status: 'sent', error: '' })
  })

  it('answers pages with a strict content security policy and no caching', async () => {
    const page = await browser.get('/dashboard/messages')
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(page.headers['cache-control']).toBe('no-store')
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.body).not.toMatch(/<script>|style="/)
  })

  it('serves the stylesheet and script by version, with ETags; nothing else', async () => {
    const page = await browser.get('/dashboard')
    const css = /href="(\/dashboard\/assets\/dashboard\.css\?v=[0-9a-f]+)"/.exec(page.body)![1]
    const js = /src="(\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]+)"/.exec(page.body)![1]
    const style = await gateway.app.inject({ url: css })
    expect(style.statusCode).toBe(200)
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8')
    expect(style.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect((await gateway.app.inject({ url: js })).headers['content-type']).toBe('text/javascript; charset=utf-8')
    const unversioned = await gateway.app.inject({ url: '/dashboard/assets/dashboard.css' })
    expect(unversioned.headers['cache-control']).toBe('no-cache')
    expect((await gateway.app.inject({ url: '/dashboard/assets/dashboard.css', headers: { 'if-none-match': String(style.headers.etag) } })).statusCode).toBe(304)
    const missing = await gateway.app.inject({ url: '/dashboard/assets/..%2F..%2Fpackage.json' })
    expect(missing.statusCode).toBe(404)
    expect(missing.body).not.toContain('"name": "outbound"')
  })

  it('lists inbound messages and templates', async () => {
    await gateway.app.inbound.insert({ workspaceId: workspace.workspaceId, phoneNumberId: '106540352242922', wamid: 'wamid.IN2', from: '15558880000', type: 'text', payload: { text: { body: 'Where is my parcel?' } }, receivedAt: new Date() })
    const inbound = await browser.get('/dashboard/inbound')
    expect(inbound.body).toContain('Where is my parcel?')
    expect(inbound.body).toContain('+15558880000')
    const templates = await browser.get('/dashboard/templates')
    for (const text of ['order_confirmation', 'pt_BR', 'MARKETING', 'data-status="REJECTED"', 'Sync now']) expect(templates.body).toContain(text)
    const synced = await browser.post('/dashboard/templates/sync')
    expect(synced.headers.location).toBe('/dashboard/templates?done=synced')
  })

  it('answers unknown dashboard URLs with the app\'s 404 envelope', async () => {
    const response = await browser.get('/dashboard/nowhere')
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ ok: false, code: 'not_found' })
  })
})
