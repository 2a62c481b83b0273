import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { sendsPerRecipient, sumOf, untilStatus, uploadCampaign, type C } from './helpers.js'

/** POST /api/campaigns.php as multipart/form-data with a CSV `file` (CONTRACT.md 15). */
describe('campaigns: CSV upload', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '200', CAMPAIGN_BODY_LIMIT_BYTES: '200000' } })
  const fields = (template = 'order_confirmation'): [string, string][] => [['name', 'From a file'], ['template', template], ['language', 'en_US']]

  it('rows become recipients with their variables; invalid rows reported with their row number; a repeat sent once', async () => {
    const csv = [
      'to,1,client_reference',
      '+17771000001,A-1,r1',
      '+17771000002,A-2,',
      'nonsense,A-3,r3',
      '+17771000004,,r4', // an empty cell is an absent value: the template needs one
      '+17771000001,again,r5',
      '\uFEFF'.slice(1) + '17771000006,"with, comma",r6'
    ].join('\r\n') + '\r\n'
    const response = await uploadCampaign(ctx.gateway, ctx.workspace, fields(), csv)
    expect(response.statusCode, response.body).toBe(201)
    const body = response.json() as { campaign: C, rejected: Array<{ row: number, field: string }> }
    expect(body.campaign.counts).toMatchObject({ total: 5, rejected: 2 })
    expect(sumOf(body.campaign.counts)).toBe(5)
    expect(body.rejected.map(rejection => [rejection.row, rejection.field])).toEqual([[3, 'to'], [4, 'variables']])
    const done = await untilStatus(ctx.gateway, ctx.workspace, body.campaign.id, 'completed')
    expect(done.counts.sent + done.counts.delivered + done.counts.read).toBe(3)
    const sends = sendsPerRecipient(ctx.gateway, 'order_confirmation')
    expect(sends.get('17771000001')).toBe(1)
    const sixth = ctx.gateway.emulator.sentMessages.find(message => message.to === '17771000006')
    expect(sixth?.payload.template).toMatchObject({ components: [{ type: 'body', parameters: [{ type: 'text', text: 'with, comma' }] }] })
  })

  it('the fields may follow the file; a BOM is no part of the header', async () => {
    const response = await uploadCampaign(ctx.gateway, ctx.workspace, [['name', 'No template']], '\uFEFFto\n+17772000001\n')
    // no template field at all: 422 naming it
    expect(expectEnvelope(response, 422, 'invalid_request').field).toBe('template')
    const ok = await uploadCampaign(ctx.gateway, ctx.workspace, fields('hello_world'), '\uFEFFto\n+17772000001\n+17772000002\n')
    expect(ok.statusCode, ok.body).toBe(201)
    expect((ok.json() as { campaign: C }).campaign.counts.total).toBe(2)
  })

  it('422 on file: no to column, a column the template does not have, an empty file, no file part', async () => {
    expect(expectEnvelope(await uploadCampaign(ctx.gateway, ctx.workspace, fields(), 'phone,1\n+17773000001,x\n'), 422, 'invalid_request').field).toBe('file')
    expect(expectEnvelope(await uploadCampaign(ctx.gateway, ctx.workspace, fields(), 'to,1,2\n+17773000001,x,y\n'), 422, 'invalid_request').field).toBe('file')
    expect(expectEnvelope(await uploadCampaign(ctx.gateway, ctx.workspace, fields(), ''), 422, 'invalid_request').field).toBe('file')
    expect(expectEnvelope(await uploadCampaign(ctx.gateway, ctx.workspace, fields(), 'to,1\n'), 422, 'invalid_request').field).toBe('file')
  })

  it('a body over CAMPAIGN_BODY_LIMIT_BYTES: 413, nothing created', async () => {
    const before = (await ctx.gateway.app.campaigns.page(ctx.workspace.workspaceId, { limit: 100 }))!.rows.length
    const rows = Array.from({ length: 12_000 }, (_, index) => `+1777${String(4000000 + index)},value-${index}`)
    const response = await uploadCampaign(ctx.gateway, ctx.workspace, fields(), `to,1\n${rows.join('\n')}\n`)
    expectEnvelope(response, 413, 'payload_too_large')
    expect((await ctx.gateway.app.campaigns.page(ctx.workspace.workspaceId, { limit: 100 }))!.rows.length).toBe(before)
  })
})

describe('campaigns: the 100,000-row cap of a CSV', () => {
  const ctx = useGateway()
  it('100,001 rows → 422 naming recipients, nothing created', async () => {
    const rows = Array.from({ length: 100_001 }, (_, index) => `+1777${String(5000000 + index)}`)
    const response = await uploadCampaign(ctx.gateway, ctx.workspace, [['name', 'Too many'], ['template', 'hello_world']], `to\n${rows.join('\n')}\n`)
    expect(expectEnvelope(response, 422, 'invalid_request').field).toBe('recipients')
    expect((await ctx.gateway.app.campaigns.page(ctx.workspace.workspaceId, { limit: 10 }))!.rows).toHaveLength(0)
  })
})
