import { describe, expect, it } from 'vitest'
import { send } from '../helpers/send.js'
import { waitFor } from '../helpers/wait.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope, received, RECIPIENT } from './helpers.js'

const BODY = [{ type: 'body', parameters: [{ type: 'text', text: 'SKBUP2' }] }]

/** Template language from the synced templates (CONTRACT.md section 2, `language`). */
describe('POST /api/messages.php: template language', () => {
  const ctx = useGateway()

  const template = (fields: Record<string, unknown>) => send(ctx.gateway, { to: RECIPIENT, type: 'template', ...fields }, { authorization: ctx.workspace.authorization })

  it("omitted: the template's only synced language", async () => {
    const response = await template({ template: 'hello_world' })
    expect(response.statusCode).toBe(200)
    expect(received(ctx.gateway, response.json().wamid).template).toEqual({ name: 'hello_world', language: { code: 'en_US' } })
  })

  it('omitted, for a template synced in several languages: 422 naming the choices', async () => {
    const body = expectEnvelope(await template({ template: 'order_confirmation', components: BODY }), 422, 'invalid_request')
    expect(body.field).toBe('language')
    expect(body.error).toMatch(/en_US/)
    expect(body.error).toMatch(/pt_BR/)
  })

  it('unknown in every language, even after a re-sync: 422 template_not_found (CONTRACT.md 14)', async () => {
    const body = expectEnvelope(await template({ template: 'never_synced' }), 422, 'template_not_found')
    expect(body.field).toBe('template')
    expect(ctx.gateway.emulator.sentMessages.some(sent => (sent.payload.template as { name?: string } | undefined)?.name === 'never_synced')).toBe(false)
  })

  it('given: sent as is, for each synced language', async () => {
    for (const language of ['en_US', 'pt_BR']) {
      const response = await template({ template: 'order_confirmation', language, components: BODY })
      expect(response.statusCode).toBe(200)
      expect(received(ctx.gateway, response.json().wamid).template).toMatchObject({ language: { code: language } })
    }
  })

  it('given for a pair not synced: sent, and the upstream refusal (132001) is a 502', async () => {
    const response = await template({ template: 'hello_world', language: 'de' })
    const body = expectEnvelope(response, 502, 'upstream_error')
    expect(body.upstream).toMatchObject({ code: 132001 })
    const [record] = await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 1 })
    expect(record).toMatchObject({ status: 'failed', errorCode: '132001' })
  })

  it('a synced pair that is not approved: 422, nothing sent', async () => {
    const before = ctx.gateway.emulator.requests.length
    for (const [name, status] of [['promo_rejected', 'REJECTED'], ['appointment_reminder', 'PENDING']]) {
      for (const fields of [{ template: name }, { template: name, language: 'en_US' }]) {
        const body = expectEnvelope(await template(fields), 422, 'template_not_approved')
        expect(body.field).toBe('template')
        expect(body.error).toContain(status)
      }
    }
    expect(ctx.gateway.emulator.requests.length).toBe(before)
  })

  /** The upstream's template webhook, applied by the intake as in production. */
  async function templateStatus (event: string): Promise<void> {
    expect(await ctx.gateway.emulator.sendTemplateStatusUpdate({ wabaId: '102290129340398', name: 'hello_world', language: 'en_US', event })).toBe(200)
    await waitFor(async () => (await ctx.gateway.app.templates.byName(ctx.workspace.workspaceId, 'hello_world')).some(row => row.language === 'en_US' && row.status === event), { what: `hello_world ${event}` })
  }

  it('follows the synced status: a template paused later is refused once synced so', async () => {
    await templateStatus('PAUSED')
    const body = expectEnvelope(await template({ template: 'hello_world' }), 422, 'template_not_approved')
    expect(body.error).toContain('PAUSED')
    await templateStatus('APPROVED')
    expect((await template({ template: 'hello_world' })).statusCode).toBe(200)
  })

  it("does not see another workspace's templates", async () => {
    const other = await ctx.gateway.app.workspaces.create('no templates', 'growth')
    const { secret } = await ctx.gateway.app.keys.create(other.id, 'k')
    const { connectWorkspace } = await import('../../src/connections/connect.js')
    ctx.gateway.emulator.addAccount({ wabaId: '400000000000001', accessToken: 'tok-4', phoneNumbers: [{ id: '400000000000002', displayPhoneNumber: '+1 555 000 0004', verifiedName: 'Four' }], templates: [] })
    await connectWorkspace(ctx.gateway.app.connectDeps, { workspaceId: other.id, wabaId: '400000000000001', accessToken: 'tok-4' })
    const body = expectEnvelope(await send(ctx.gateway, { to: RECIPIENT, type: 'template', template: 'hello_world' }, { authorization: `Bearer ${secret}` }), 422, 'template_not_found')
    expect(body.field).toBe('template')
  })
})
