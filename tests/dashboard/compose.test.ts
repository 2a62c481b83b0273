import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { Browser, userIn } from './helpers.js'

describe('sending from the dashboard: any plan, the API\'s validation, log and dispatch', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: Browser

  const compose = async (fields: Record<string, string>) => await browser.post('/dashboard/compose', fields)
  const alertOf = (html: string) => /<div class="alert alert-(\w+)" role="\w+">([^]*?)<\/div>/.exec(html)
  const newest = async () => (await gateway.app.messages.list(workspace.workspaceId, { limit: 1 }))[0]

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway, 'free')
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
  })
  afterAll(async () => { await gateway.close() })

  it('sends a text on the free plan, whose API keys get 403', async () => {
    const api = await gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: workspace.authorization }, payload: { to: '15551234567', body: 'x' } })
    expect(api.statusCode).toBe(403)

    const response = await compose({ to: '+15551234567', type: 'text', body: 'Hello from the dashboard', preview_url: 'on' })
    expect(response.statusCode).toBe(200)
    const record = await newest()
    expect(alertOf(response.body)?.[1]).toBe('success')
    expect(response.body).toContain(record.wamid!)
    expect(response.body).toContain(`href="/dashboard/messages/${record.id}"`)
    expect(record).toMatchObject({ apiKeyId: null, recipient: '15551234567', type: 'text', attempts: 1 })
    expect(record.payload).toMatchObject({ to: '15551234567', type: 'text', text: { body: 'Hello from the dashboard', preview_url: true }, biz_opaque_callback_data: record.id })
    await waitFor(async () => (await gateway.app.messages.get(record.id))?.status === 'read', { what: 'read' })
  })

  it('sends a template with its variables, and media by link from the chosen number', async () => {
    const template = await compose({ to: '15551234567', type: 'template', template: 'order_confirmation:pt_BR', variables: 'A-1042\n' })
    expect(alertOf(template.body)?.[1]).toBe('success')
    expect((await newest()).payload).toMatchObject({
      type: 'template',
      template: { name: 'order_confirmation', language: { code: 'pt_BR' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'A-1042' }] }] }
    })

    const second = workspace.connection.phone_numbers[1].phone_number_id
    const image = await compose({ to: '15551234567', type: 'image', link: 'https://example.com/cat.jpg', caption: 'A cat', phone_number_id: second })
    expect(alertOf(image.body)?.[1]).toBe('success')
    expect(await newest()).toMatchObject({ phoneNumberId: second, type: 'image', payload: expect.objectContaining({ image: { link: 'https://example.com/cat.jpg', caption: 'A cat' } }) })
  })

  it('refuses what the API refuses, with its words, keeping the form and logging nothing', async () => {
    const before = (await gateway.app.messages.list(workspace.workspaceId, { limit: 100 })).length
    const cases: [Record<string, string>, string][] = [
      [{ to: '12', type: 'text', body: 'hi' }, 'to must be a phone number in international format'],
      [{ to: '15551234567', type: 'text', body: '   ' }, 'body must not be only whitespace'],
      [{ to: '15551234567', type: 'text', body: 'hi', caption: 'no' }, 'caption is not allowed for type text'],
      [{ to: '15551234567', type: 'image' }, 'media_id or link is required for type image'],
      [{ to: '15551234567', type: 'template', template: 'promo_rejected:en_US' }, 'template promo_rejected in en_US is REJECTED'],
      [{ to: '15551234567', type: 'template', template: 'order_confirmation' }, 'language is required: template order_confirmation exists in several languages'],
      [{ to: '15551234567', type: 'fax' }, 'type must be one of'],
      [{ to: '15551234567', body: 'hi', phone_number_id: '42' }, 'phone_number_id 42 is not an active number']
    ]
    for (const [fields, words] of cases) {
      const response = await compose(fields)
      expect(response.statusCode, JSON.stringify(fields)).toBe(422)
      expect(alertOf(response.body)?.[2], JSON.stringify(fields)).toContain(words)
    }
    expect((await compose({ to: '+1555 12', type: 'text', body: 'kept <b>text</b>' })).body).toContain('kept &lt;b&gt;text&lt;/b&gt;</textarea>')
    expect((await gateway.app.messages.list(workspace.workspaceId, { limit: 100 })).length).toBe(before)
  })

  it('shows the upstream\'s refusal plainly, with its code and the failed log record', async () => {
    const response = await compose({ to: '15550000001', type: 'text', body: 'will fail' })
    expect(response.statusCode).toBe(502)
    const [, kind, text] = alertOf(response.body)!
    expect(kind).toBe('error')
    expect(text).toContain('upstream_error')
    expect(text).toContain('The upstream refused the message')
    expect(text).toContain('upstream code 131026')
    const record = await newest()
    expect(record).toMatchObject({ status: 'failed', errorCode: '131026', recipient: '15550000001' })
    expect(text).toContain(`/dashboard/messages/${record.id}`)
    const detail = await browser.get(`/dashboard/messages/${record.id}`)
    expect(detail.body).toContain('131026')
  })

  it('says so when no number is connected', async () => {
    await browser.post('/dashboard/disconnect')
    expect((await browser.get('/dashboard/compose')).body).toContain('No number is connected yet')
    const response = await compose({ to: '15551234567', type: 'text', body: 'nowhere to send from' })
    expect(response.statusCode).toBe(409)
    expect(response.body).toContain('The workspace has no active connected number')
  })
})
