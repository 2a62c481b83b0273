import { describe, expect, it } from 'vitest'
import { sampleFile, type SampleKind } from '../../src/sandbox/sample-media.js'
import { sendParts, type Part } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { padded, uploadsSeen, useMediaDir } from './helpers.js'

const TO = '15551234567'

describe('POST /api/messages.php carrying its file (one call)', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), SERVICE_WINDOW_CHECK: 'off' } })

  const send = async (parts: Part[], headers: Record<string, string> = {}) => await sendParts(ctx.gateway, ctx.workspace.authorization, parts, headers)
  const file = (kind: SampleKind) => { const sample = sampleFile(kind); return { bytes: sample.bytes, filename: sample.filename, type: sample.mimeType } }
  const sentWith = (wamid: unknown) => ctx.gateway.emulator.sentMessages.find(message => message.wamid === wamid)

  it('uploads the file, sends it by id and answers its media_id', async () => {
    const { status, body } = await send([['to', TO], ['type', 'image'], ['caption', 'Your receipt'], ['file', file('image')]])
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body).toEqual({ ok: true, id: expect.stringMatching(/^msg_/), wamid: expect.stringMatching(/^wamid\./), status: 'sent', media_id: expect.stringMatching(/^\d+$/) })
    expect(sentWith(body.wamid)!.payload.image).toEqual({ id: body.media_id, caption: 'Your receipt' })
    expect(ctx.gateway.emulator.media(String(body.media_id))!.mimeType).toBe('image/png')
  })

  it('takes the file before the other fields too, and a document with its filename', async () => {
    const { body } = await send([['file', file('document')], ['to', TO], ['type', 'document'], ['filename', 'invoice-1042.pdf']])
    expect(body).toMatchObject({ ok: true, status: 'sent' })
    expect(sentWith(body.wamid)!.payload.document).toEqual({ id: body.media_id, filename: 'invoice-1042.pdf' })
  })

  it('is bounded by MEDIA_MAX_BYTES, not BODY_LIMIT_BYTES: a 1 MB document goes', async () => {
    const big = padded(sampleFile('document').bytes, 1024 * 1024)
    const { body } = await send([['to', TO], ['type', 'document'], ['file', { bytes: big, filename: 'big.pdf' }]])
    expect(body).toMatchObject({ ok: true, status: 'sent' })
  })

  it('queued (Prefer: respond-async): uploaded before the 202, then sent from the queue by id', async () => {
    const { status, body } = await send([['to', TO], ['type', 'video'], ['file', file('video')]], { prefer: 'respond-async' })
    expect(status).toBe(202)
    expect(body).toEqual({ ok: true, id: expect.stringMatching(/^msg_/), status: 'queued', media_id: expect.stringMatching(/^\d+$/) })
    expect(ctx.gateway.emulator.media(String(body.media_id))).toBeDefined()
    const sent = await waitFor(async () => ctx.gateway.emulator.sentMessages.find(message => (message.payload.video as { id?: string } | undefined)?.id === body.media_id), { what: 'the queued video sent' })
    expect(sent.payload.video).toEqual({ id: body.media_id })
  })

  describe('refuses, with nothing uploaded or sent', () => {
    it.each<[string, Part[], string, string]>([
      ['a WebP as an image (WebP goes only as a sticker)', [['to', TO], ['type', 'image'], ['file', file('sticker')]], 'unsupported_media', 'sticker'],
      ['a PDF as an image', [['to', TO], ['type', 'image'], ['file', file('document')]], 'unsupported_media', 'document'],
      ['a file with media_id', [['to', TO], ['type', 'image'], ['media_id', '123'], ['file', file('image')]], 'invalid_request', 'media_id'],
      ['a file with link', [['to', TO], ['type', 'image'], ['link', 'https://example.com/a.png'], ['file', file('image')]], 'invalid_request', 'link'],
      ['a file on a text message', [['to', TO], ['body', 'hi'], ['file', file('image')]], 'invalid_request', 'text'],
      ['a file on a template', [['to', TO], ['type', 'template'], ['template', 'hello_world'], ['file', file('image')]], 'invalid_request', 'template'],
      ['an image one byte over 5 MB', [['to', TO], ['type', 'image'], ['file', { bytes: padded(sampleFile('image').bytes, 5 * 1024 * 1024 + 1), filename: 'big.png' }]], 'unsupported_media', '5 MB (5242880 bytes)'],
      ['a GIF', [['to', TO], ['type', 'image'], ['file', { bytes: padded(Buffer.from('GIF89a'), 64), filename: 'a.gif' }]], 'unsupported_media', 'image/gif'],
      ['a file part under another name', [['to', TO], ['type', 'image'], ['photo', file('image')]], 'invalid_request', 'photo']
    ])('%s', async (_case, parts, code, mentioned) => {
      const before = { uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }
      const { status, body } = await send(parts)
      expect(status, JSON.stringify(body)).toBe(422)
      expect(body).toMatchObject({ ok: false, code, field: code === 'invalid_request' && mentioned === 'photo' ? 'photo' : 'file' })
      expect(body.error).toContain(mentioned)
      expect({ uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }).toEqual(before)
    })
  })

  it('with an Idempotency-Key: a retry with the same file replays without uploading; another file under the key is a mismatch', async () => {
    const key = { 'idempotency-key': `one-call-${Date.now()}` }
    const parts: Part[] = [['to', TO], ['type', 'image'], ['file', file('image')]]
    const first = await send(parts, key)
    expect(first.status).toBe(200)
    const before = { uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }
    const again = await send(parts, key)
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.text).toBe(first.text)
    const other = await send([['to', TO], ['type', 'image'], ['file', { bytes: sampleFile('image').bytes.subarray(0, 200), filename: 'b.png' }]], key)
    expect(other.body).toMatchObject({ code: 'idempotency_mismatch' })
    const byId = await fetch(`${ctx.gateway.url}/api/messages.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json', ...key }, body: JSON.stringify({ to: TO, type: 'image', media_id: first.body.media_id }) })
    expect((await byId.json() as Record<string, unknown>).code).toBe('idempotency_mismatch')
    expect({ uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }).toEqual(before)
  })
})
