import { describe, expect, it } from 'vitest'
import { SCOPES, type Scope } from '../../src/access/scopes.js'
import { sampleFile } from '../../src/sandbox/sample-media.js'
import { sendParts, type Part } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { upload, uploadsSeen, useMediaDir } from './helpers.js'

let sent = 0
// each send to its own recipient: the pair rate limit never has a say
const recipient = () => `1555${String(4_100_000 + sent++)}`
const png = () => ({ bytes: sampleFile('image').bytes, filename: 'a.png', type: 'image/png' })

// A key's scopes and numbers (CONTRACT.md 16) hold for media as for JSON sends: refused with nothing uploaded or sent.
describe('media under scoped keys', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), SERVICE_WINDOW_CHECK: 'off' } })
  const numbers = () => ctx.workspace.connection.phone_numbers.map(number => number.phone_number_id)
  async function keyWith (scopes: readonly Scope[], phoneNumberIds: string[] | null = null): Promise<string> {
    const { secret } = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, `media ${scopes.join(' ')}`, { scopes, phoneNumberIds })
    return `Bearer ${secret}`
  }
  const send = async (authorization: string, parts: Part[]) => await sendParts(ctx.gateway, authorization, parts)
  const seen = () => ({ uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length })

  it('a one-call send from a number the key may not use is 403 naming it, however the number is given', async () => {
    const [first, second] = numbers()
    const secondOnly = await keyWith(SCOPES, [second])
    const before = seen()
    for (const parts of [
      [['to', recipient()], ['type', 'image'], ['file', png()]], // omitted: the workspace's first number
      [['to', recipient()], ['type', 'image'], ['phone_number_id', first], ['file', png()]],
      [['to', recipient()], ['type', 'image'], ['file', png()], ['phone_number_id', first]], // after the file
      [['to', recipient()], ['type', 'image'], ['phone_number_id', '999'], ['file', png()]]
    ] as Part[][]) {
      const { status, body } = await send(secondOnly, parts)
      expect(status, JSON.stringify(body)).toBe(403)
      expect(body).toMatchObject({ ok: false, code: 'insufficient_scope' })
    }
    expect(seen()).toEqual(before)
    const allowed = await send(secondOnly, [['to', recipient()], ['type', 'image'], ['phone_number_id', second], ['file', png()]])
    expect(allowed.body).toMatchObject({ ok: true, status: 'sent' })
    expect(ctx.gateway.emulator.sentMessages.find(message => message.wamid === allowed.body.wamid)?.phoneNumberId).toBe(second)
    expect(ctx.gateway.emulator.requests.filter(request => request.path === `/${second}/media`).length).toBeGreaterThan(0)
  })

  it('an upload from a number the key may not use is 403; from its own number it goes', async () => {
    const [first, second] = numbers()
    const secondOnly = await keyWith(['media:write'], [second])
    const before = seen()
    for (const parts of [[['file', png()]], [['phone_number_id', first], ['file', png()]], [['phone_number_id', '999'], ['file', png()]]] as Part[][]) {
      const { status, body } = await upload(ctx.gateway, secondOnly, parts)
      expect(status, JSON.stringify(body)).toBe(403)
      expect(body).toMatchObject({ ok: false, code: 'insufficient_scope', error: expect.stringContaining(parts.length === 1 ? first : String(parts[0][1])) })
    }
    expect(seen()).toEqual(before)
    const own = await upload(ctx.gateway, secondOnly, [['phone_number_id', second], ['file', png()]])
    expect(own.body).toMatchObject({ ok: true, type: 'image' })
    // a number named after the file, and not the key's: refused and the upload withdrawn
    const late = await upload(ctx.gateway, secondOnly, [['phone_number_id', second], ['file', png()], ['phone_number_id', first]])
    expect(late.body).toMatchObject({ code: 'insufficient_scope' })
    expect(ctx.gateway.emulator.requests.at(-1)).toMatchObject({ method: 'DELETE' })
  })

  it('a one-call send needs messages:send and media:write; a send by media_id only messages:send', async () => {
    const before = seen()
    const parts = (): Part[] => [['to', recipient()], ['type', 'image'], ['file', png()]]
    const noMedia = await send(await keyWith(['messages:send']), parts())
    expect(noMedia.status).toBe(403)
    expect(noMedia.body).toMatchObject({ ok: false, code: 'insufficient_scope', error: expect.stringContaining('media:write') })
    const noSend = await send(await keyWith(['media:write']), parts())
    expect(noSend.status).toBe(403)
    expect(noSend.body).toMatchObject({ ok: false, code: 'insufficient_scope', error: expect.stringContaining('messages:send') })
    expect(seen()).toEqual(before)
    const uploadOnly = await upload(ctx.gateway, await keyWith(['messages:send']), [['file', png()]])
    expect(uploadOnly.body).toMatchObject({ code: 'insufficient_scope', error: expect.stringContaining('media:write') })
    expect(seen()).toEqual(before)

    const both = await send(await keyWith(['messages:send', 'media:write']), parts())
    expect(both.body).toMatchObject({ ok: true, status: 'sent' })
    const byId = await send(await keyWith(['messages:send']), [['to', recipient()], ['type', 'image'], ['media_id', String(both.body.media_id)]])
    expect(byId.body).toMatchObject({ ok: true, status: 'sent' })
  })
})
