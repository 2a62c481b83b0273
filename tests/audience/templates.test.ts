import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import type { TestGateway } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { MARKETING, messageOf, sendTo, sentTo, WABA } from './helpers.js'

const catalogReads = (gateway: TestGateway) => gateway.emulator.requests.filter(request => request.method === 'GET' && request.path.endsWith('/message_templates')).length

async function templateEvent (gateway: TestGateway, workspaceId: string, name: string, event: string, status = event): Promise<void> {
  expect(await gateway.emulator.sendTemplateStatusUpdate({ wabaId: WABA, name, language: 'en_US', event })).toBe(200)
  await waitFor(async () => (await gateway.app.templates.byName(workspaceId, name)).some(row => row.language === 'en_US' && row.status === status), { timeoutMs: 15_000, what: `${name} ${status}` })
}

/** CONTRACT.md 14, template guardrails: checked against the catalog before anything goes upstream. */
describe('audience: template guardrails', () => {
  const ctx = useGateway()

  it('a name unknown locally re-syncs the catalog once: a template added upstream since is found and sent', async () => {
    const { gateway, workspace } = ctx
    gateway.emulator.setTemplates(WABA, [...defaultAccount().templates, { id: '1259544702049999', name: 'new_notice', language: 'en_US', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Notice' }] }])
    const before = catalogReads(gateway)
    expect((await sendTo(gateway, workspace, '15559000001', { type: 'template', template: 'new_notice' })).statusCode).toBe(200)
    expect(catalogReads(gateway)).toBe(before + 1)
  })

  it('unknown in every language: 422 template_not_found, nothing sent; no second re-sync within the minute', async () => {
    const { gateway, workspace } = ctx
    const before = catalogReads(gateway)
    const sends = gateway.emulator.sentMessages.length
    const body = expectEnvelope(await sendTo(gateway, workspace, '15559000002', { type: 'template', template: 'no_such_template', language: 'en_US' }), 422, 'template_not_found')
    expect(body.field).toBe('template')
    expectEnvelope(await sendTo(gateway, workspace, '15559000002', { type: 'template', template: 'another_unknown' }), 422, 'template_not_found')
    expect(catalogReads(gateway)).toBe(before) // the first test's re-sync was less than a minute ago
    expect(gateway.emulator.sentMessages.length).toBe(sends)
  })

  it('a known pair not APPROVED: 422 template_not_approved naming the status', async () => {
    const body = expectEnvelope(await sendTo(ctx.gateway, ctx.workspace, '15559000003', { type: 'template', template: 'promo_rejected' }), 422, 'template_not_approved')
    expect(body.error).toContain('REJECTED')
    expect(body.field).toBe('template')
  })

  it('a parameter count that differs from the placeholders: 422 template_parameters naming the expected count; a quick-reply payload is not counted', async () => {
    const { gateway, workspace } = ctx
    const one = { ...MARKETING, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }] }
    const body = expectEnvelope(await sendTo(gateway, workspace, '15559000004', one), 422, 'template_parameters')
    expect(body.error).toContain('expects 2 body parameters')
    const withPayload = { ...MARKETING, components: [...MARKETING.components, { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'STOP' }] }] }
    expect((await sendTo(gateway, workspace, '15559000004', withPayload)).statusCode).toBe(200)
    // shape errors keep their code: the request's checks come first
    expectEnvelope(await sendTo(gateway, workspace, '15559000004', { ...MARKETING, components: [{ type: 'body', parameters: [{ type: 'text' }] }] }), 422, 'invalid_request')
  })

  it('PAUSED: synchronous sends 422 naming PAUSED; queued ones are held (template_paused) and go once it is approved again', async () => {
    const { gateway, workspace } = ctx
    await templateEvent(gateway, workspace.workspaceId, 'weekly_offer', 'PAUSED')
    const body = expectEnvelope(await sendTo(gateway, workspace, '15559000005', MARKETING), 422, 'template_not_approved')
    expect(body.error).toContain('PAUSED')
    const queued = await sendTo(gateway, workspace, '15559000005', MARKETING, { prefer: 'respond-async' })
    expect(queued.statusCode).toBe(202)
    const id = queued.json().id as string
    await waitFor(async () => (await messageOf(gateway, workspace, id)).held_reason === 'template_paused', { timeoutMs: 15_000, what: 'held template_paused' })
    expect(sentTo(gateway, '15559000005')).toBe(0)
    await templateEvent(gateway, workspace.workspaceId, 'weekly_offer', 'REINSTATED', 'APPROVED')
    // released by the event, well before the minute's re-check
    await waitFor(async () => ['sent', 'delivered', 'read'].includes(String((await messageOf(gateway, workspace, id)).status)), { timeoutMs: 15_000, what: 'sent after approval' })
  })

  it('DISABLED: a queued hand-over is 422 as well', async () => {
    const { gateway, workspace } = ctx
    await templateEvent(gateway, workspace.workspaceId, 'weekly_offer', 'DISABLED')
    const body = expectEnvelope(await sendTo(gateway, workspace, '15559000006', MARKETING, { prefer: 'respond-async' }), 422, 'template_not_approved')
    expect(body.error).toContain('DISABLED')
    await templateEvent(gateway, workspace.workspaceId, 'weekly_offer', 'APPROVED')
  })

  it('upstream 132015 marks the template PAUSED', async () => {
    const { gateway, workspace } = ctx
    expect((await sendTo(gateway, workspace, '15550000011', { type: 'template', template: 'hello_world' })).statusCode).toBe(502)
    await waitFor(async () => (await gateway.app.templates.byName(workspace.workspaceId, 'hello_world'))[0]?.status === 'PAUSED', { what: 'hello_world PAUSED' })
    expectEnvelope(await sendTo(gateway, workspace, '15559000007', { type: 'template', template: 'hello_world' }), 422, 'template_not_approved')
  })
})
