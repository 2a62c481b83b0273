import { describe, expect, it } from 'vitest'
import { syncWorkspaceTemplates } from '../../src/connections/connect.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { act, createCampaign, recipients, untilStatus, uploadCampaign, type C } from './helpers.js'

const account = defaultAccount()
const fields = (template = 'order_confirmation'): [string, string][] => [['name', 'From a file'], ['template', template], ['language', 'en_US']]
/** What postgres.js throws when the server went away: section 12's database fault. */
const connectionClosed = () => Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' })

/** The audit of campaign creation (C1–C3, C5, C6): bad bytes, the limit's words, outages, the template guard, the 409's envelope. */
describe('campaigns: the audit\'s items', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '200', CAMPAIGN_BODY_LIMIT_BYTES: '200000' } })

  it('C5: a template unknown at creation re-syncs the catalog (section 14), then is accepted', async () => {
    const { gateway } = ctx
    gateway.emulator.setTemplates(account.wabaId, [...account.templates, { name: 'fresh_from_meta', language: 'en_US', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi {{1}}' }] }])
    const response = await createCampaign(gateway, ctx.workspace, { template: 'fresh_from_meta', recipients: recipients(1, 9000, () => ['Ana']) })
    expect(response.statusCode, response.body).toBe(201)
  })

  it('C5: header and URL-button placeholders a campaign cannot fill → 422 template_parameters naming the count; several languages → language', async () => {
    const { gateway, workspace } = ctx
    gateway.emulator.setTemplates(account.wabaId, [
      ...account.templates,
      { name: 'header_var', language: 'en_US', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'HEADER', format: 'TEXT', text: 'For {{1}}' }, { type: 'BODY', text: 'Hello {{1}}' }] },
      { name: 'url_button', language: 'en_US', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Track it' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}' }] }] }
    ])
    await syncWorkspaceTemplates(gateway.app.connectDeps, workspace.workspaceId)
    const header = expectEnvelope(await createCampaign(gateway, workspace, { template: 'header_var', recipients: recipients(1, 9100, () => ['x']) }), 422, 'template_parameters')
    expect(header.error).toMatch(/expects 1 header parameter/)
    const button = expectEnvelope(await uploadCampaign(gateway, workspace, fields('url_button'), 'to\n+17779200001\n'), 422, 'template_parameters')
    expect(button.error).toMatch(/expects 1 button 0 parameter/)
    expect(expectEnvelope(await createCampaign(gateway, workspace, { template: 'order_confirmation', recipients: recipients(1, 9300, () => ['x']) }), 422, 'invalid_request').field).toBe('language')
  })

  it('C1: a NUL byte in a multipart field or a CSV cell → 422 naming the field or the row, nothing created', async () => {
    const { gateway, workspace } = ctx
    const before = (await gateway.app.campaigns.page(workspace.workspaceId, { limit: 100 }))!.rows.length
    const field = expectEnvelope(await uploadCampaign(gateway, workspace, [['name', 'Bad\u0000name'], ['template', 'order_confirmation'], ['language', 'en_US']], 'to,1\n+17779300001,x\n'), 422, 'invalid_request')
    expect(field.field).toBe('name')
    const row = expectEnvelope(await uploadCampaign(gateway, workspace, fields(), 'to,1\n+17779300001,fine\n+17779300002,b\u0000d\n'), 422, 'invalid_request')
    expect(row).toMatchObject({ field: 'file' })
    expect(row.error).toMatch(/row 2, column 1/)
    const json = expectEnvelope(await createCampaign(gateway, workspace, { template: 'order_confirmation', language: 'en_US', recipients: [{ to: '+17779300003', variables: ['a\u0000'] }] }), 422, 'invalid_request')
    expect(json.field).toMatch(/^recipients/)
    expect(json.error).toMatch(/NUL|null character|\\u0000/i)
    expect((await gateway.app.campaigns.page(workspace.workspaceId, { limit: 100 }))!.rows.length).toBe(before)
  })

  it('C2: the 413 names CAMPAIGN_BODY_LIMIT_BYTES and its value, for a CSV and for JSON', async () => {
    const { gateway, workspace } = ctx
    const rows = Array.from({ length: 12_000 }, (_, index) => `+1777${String(4000000 + index)},value-${index}`)
    const csv = expectEnvelope(await uploadCampaign(gateway, workspace, fields(), `to,1\n${rows.join('\n')}\n`), 413, 'payload_too_large')
    expect(csv.error).toMatch(/200000 bytes \(CAMPAIGN_BODY_LIMIT_BYTES\)/)
    const json = expectEnvelope(await createCampaign(gateway, workspace, { template: 'order_confirmation', language: 'en_US', recipients: recipients(6000, 0, index => [`value-${index}`]) }), 413, 'payload_too_large')
    expect(json.error).toMatch(/200000 bytes \(CAMPAIGN_BODY_LIMIT_BYTES\)/)
  })

  it('C3: the database failing while a CSV or JSON campaign is checked → 503 database_unavailable with Retry-After, not 422', async () => {
    const { gateway, workspace } = ctx
    const templates = gateway.app.templates
    const byName = templates.byName
    templates.byName = async () => { throw connectionClosed() }
    try {
      for (const response of [
        await uploadCampaign(gateway, workspace, fields(), 'to,1\n+17779400001,x\n'),
        await createCampaign(gateway, workspace, { template: 'order_confirmation', language: 'en_US', recipients: recipients(1, 9400, () => ['x']) })
      ]) {
        expectEnvelope(response, 503, 'database_unavailable')
        expect(response.headers['retry-after']).toBeDefined()
      }
    } finally {
      templates.byName = byName
    }
  })

  it('C6: 409 campaign_ended in the envelope {ok, error, code} and in the OpenAPI document', async () => {
    const { gateway, workspace } = ctx
    const created = (await createCampaign(gateway, workspace, { template: 'hello_world', recipients: recipients(1, 9500) })).json() as { campaign: C }
    await untilStatus(gateway, workspace, created.campaign.id, 'completed')
    const response = await act(gateway, workspace, created.campaign.id, 'resume')
    const body = expectEnvelope(response, 409, 'campaign_ended')
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'ok'])
    expect(body.error).toMatch(/completed/)
    const document = (await gateway.app.inject('/docs/json')).json() as { paths: Record<string, Record<string, { responses: Record<string, { description: string, content?: unknown }> }>> }
    const conflict = document.paths['/api/campaigns.php'].post.responses['409']
    expect(conflict.description).toMatch(/campaign_ended/)
    expect(JSON.stringify(conflict.content)).toContain('"code"')
  })
})
