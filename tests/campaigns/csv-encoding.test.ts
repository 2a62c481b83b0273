import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { URL, type C } from './helpers.js'

/** CONTRACT.md 15: a campaign's CSV is UTF-8; a row that is not is rejected, a file that is not is a 422 on `file`. */
describe('campaigns: a CSV that is not UTF-8', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '200' } })
  const fields: Array<[string, string]> = [['name', 'Encodings'], ['template', 'order_confirmation'], ['language', 'en_US']]

  /** The CSV part as the bytes given, not as a JavaScript string. */
  async function upload (csv: Buffer): Promise<LightMyRequestResponse> {
    const boundary = `----outbound${randomBytes(8).toString('hex')}`
    const head = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="recipients.csv"\r\nContent-Type: text/csv\r\n\r\n`
    const payload = Buffer.concat([Buffer.from(head), csv, Buffer.from(`\r\n--${boundary}--\r\n`)])
    return await ctx.gateway.app.inject({ method: 'POST', url: URL, headers: { authorization: ctx.workspace.authorization, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload })
  }
  const campaignCount = async () => (await ctx.gateway.app.campaigns.page(ctx.workspace.workspaceId, { limit: 100 }))!.rows.length
  const latin1 = (text: string) => Buffer.from(text, 'latin1')

  it('a row with invalid UTF-8 is rejected with its row and column; the others go, nothing stored as U+FFFD', async () => {
    const csv = Buffer.concat([
      Buffer.from('to,1,client_reference\n+17775000001,Zoë,r1\n'),
      latin1('+17775000002,Jos\xe9,r2\n'),
      Buffer.from('+17775000003,fine,'), latin1('r\xff3\n'),
      latin1('+1777500000\xb94,x,r4\n'),
      Buffer.from('+17775000005,\uFFFD is a character,r5\n+17775000006,F,r6\n+17775000007,G,r7\n')
    ])
    const response = await upload(csv)
    expect(response.statusCode, response.body).toBe(201)
    const body = response.json() as { campaign: C, rejected: Array<{ row: number, field: string, error: string }> }
    expect(body.rejected.map(rejection => [rejection.row, rejection.field])).toEqual([[2, '1'], [3, 'client_reference'], [4, 'to']])
    expect(body.rejected[0].error).toMatch(/UTF-8/)
    expect(body.campaign.counts).toMatchObject({ total: 7, rejected: 3 })
    const messages = await ctx.gateway.app.inject({ method: 'GET', url: `/api/messages.php?campaign_id=${body.campaign.id}`, headers: { authorization: ctx.workspace.authorization } })
    const listed = (messages.json() as { messages: Array<{ to: string, client_reference: string | null }> }).messages
    await expect.poll(async () => ctx.gateway.emulator.sentMessages.filter(message => message.to.startsWith('177750000')).length, { timeout: 10_000 }).toBe(4)
    const sent = ctx.gateway.emulator.sentMessages.filter(message => message.to.startsWith('177750000'))
    expect(sent.map(message => (message.payload.template as { components: Array<{ parameters: Array<{ text: string }> }> }).components[0].parameters[0].text).sort())
      .toEqual(['F', 'G', 'Zoë', '\uFFFD is a character'])
    expect(listed.every(message => message.client_reference === null || !message.client_reference.includes('\uFFFD'))).toBe(true)
  })

  it('a file that is not UTF-8 → 422 invalid_request naming file, nothing created: UTF-16 with or without a BOM, a header that is not UTF-8, mostly invalid rows', async () => {
    const text = 'to,1\n+17775100001,A\n+17775100002,B\n'
    const be = (value: string) => Buffer.from(value, 'utf16le').swap16()
    const before = await campaignCount()
    const files: Array<[string, Buffer]> = [
      ['UTF-16LE with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
      ['UTF-16BE with a BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), be(text)])],
      ['UTF-16LE without a BOM', Buffer.from(text, 'utf16le')],
      ['UTF-16BE without a BOM', be(text)],
      ['a Latin-1 header', latin1('to,1,r\xe9f\xe9rence\n+17775100001,A,x\n')],
      ['Latin-1 rows, most of them', latin1('to,1\n+17775100001,Jos\xe9\n+17775100002,Andr\xe9\n+17775100003,Ana\n+17775100004,Ren\xe9e\n')]
    ]
    for (const [what, csv] of files) {
      const refused = expectEnvelope(await upload(csv), 422, 'invalid_request')
      expect(refused.field, what).toBe('file')
      expect(refused.error, what).toMatch(/UTF-8/)
    }
    expect(await campaignCount()).toBe(before)
    expect(ctx.gateway.emulator.sentMessages.filter(message => message.to.startsWith('177751000'))).toEqual([])
  })

  it('a quote inside an unquoted cell is the file\'s 422, not a 500', async () => {
    const refused = expectEnvelope(await upload(Buffer.from('to,1\n+17775300001,a"b"\n')), 422, 'invalid_request')
    expect(refused.field).toBe('file')
  })

  it('a UTF-8 BOM stays accepted, before a quoted header too', async () => {
    for (const header of ['to,1', '"to","1"']) {
      const response = await upload(Buffer.from(`\uFEFF${header}\n+17775200001,Zoë\n`))
      expect(response.statusCode, response.body).toBe(201)
      expect((response.json() as { campaign: C }).campaign.counts).toMatchObject({ total: 1, rejected: 0 })
    }
  })
})
