import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sampleFile, webpSticker } from '../../src/sandbox/sample-media.js'
import { connectedWorkspace } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { padded, postChunked, upload, uploadsSeen, useMediaDir } from './helpers.js'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const DAY = 24 * 60 * 60_000

describe('POST /api/media.php', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir() } })

  it.each(['image', 'video', 'audio', 'document', 'sticker'] as const)('uploads %s, checked by content, and answers its metadata', async kind => {
    const file = sampleFile(kind)
    const { status, body } = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: file.bytes, filename: file.filename, type: file.mimeType }]])
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body).toEqual({ ok: true, media_id: expect.stringMatching(/^\d+$/), type: kind, mime_type: file.mimeType, file_size: file.bytes.length, sha256: sha256(file.bytes), expires_at: expect.any(String) })
    expect(Math.abs(Date.parse(String(body.expires_at)) - Date.now() - 30 * DAY)).toBeLessThan(60_000)
    // what the upstream holds is the same bytes, under the detected type
    const held = ctx.gateway.emulator.media(String(body.media_id))!
    expect(held.sha256).toBe(sha256(file.bytes))
    expect(held.mimeType).toBe(file.mimeType)
  })

  it('takes plain text (no magic bytes) as text/plain, and a file with no name or type by its content', async () => {
    const text = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: Buffer.from('Order 1042: shipped\nÜbermorgen da.\n'), filename: 'notes.txt' }]])
    expect(text.body).toMatchObject({ ok: true, type: 'document', mime_type: 'text/plain' })
    const bare = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: sampleFile('image').bytes, filename: 'blob', type: 'application/octet-stream' }]])
    expect(bare.body).toMatchObject({ ok: true, type: 'image', mime_type: 'image/png' })
  })

  it('streams a chunked upload (no Content-Length) through the same checks', async () => {
    const bytes = padded(sampleFile('document').bytes, 300_000)
    const response = await postChunked(`${ctx.gateway.url}/api/media.php`, ctx.workspace.authorization, [['file', { bytes, filename: 'big.pdf' }]])
    expect(await response.json()).toMatchObject({ ok: true, type: 'document', file_size: 300_000, sha256: sha256(bytes) })
  })

  describe('refuses, with nothing sent upstream', () => {
    const refusals: Array<[string, () => { bytes: Buffer, filename?: string, type?: string }, RegExp]> = [
      ['a GIF (a type WhatsApp does not take), naming it', () => ({ bytes: padded(Buffer.from('GIF89a'), 100), filename: 'cat.gif' }), /image\/gif/],
      ['a PNG named .jpg', () => ({ bytes: sampleFile('image').bytes, filename: 'cat.jpg' }), /declared as image\/jpeg but its content is image\/png/],
      ['a PNG sent as image/jpeg', () => ({ bytes: sampleFile('image').bytes, filename: 'cat', type: 'image/jpeg' }), /declared as image\/jpeg/],
      ['an image over 5 MB, naming the limit', () => ({ bytes: padded(sampleFile('image').bytes, 5 * 1024 * 1024 + 1), filename: 'big.png' }), /5 MB/],
      ['a static sticker over 100 KB', () => ({ bytes: webpSticker(false, 100 * 1024 + 1), filename: 's.webp' }), /100 KB/],
      ['an animated sticker over 500 KB', () => ({ bytes: webpSticker(true, 500 * 1024 + 1), filename: 's.webp' }), /500 KB/],
      ['bytes of no known type', () => ({ bytes: Buffer.from([0, 1, 2, 3, 0xfe, 0xff, 0, 0, 9, 9]), filename: 'x.bin' }), /application\/octet-stream/],
      ['an empty file', () => ({ bytes: Buffer.alloc(0), filename: 'e.pdf' }), /empty/],
      ['an old Office file that says nothing of what it is', () => ({ bytes: padded(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 2048), filename: 'x' }), /application\/x-cfb/]
    ]
    it.each(refusals)('%s', async (_case, make, message) => {
      const before = uploadsSeen(ctx.gateway)
      const { status, body } = await upload(ctx.gateway, ctx.workspace.authorization, [['file', make()]])
      expect(status, JSON.stringify(body)).toBe(422)
      expect(body).toMatchObject({ ok: false, code: 'unsupported_media', field: 'file' })
      expect(body.error).toMatch(message)
      expect(uploadsSeen(ctx.gateway)).toBe(before)
    })

    it('an oversized image sent chunked (its length unknown until read)', async () => {
      const before = uploadsSeen(ctx.gateway)
      const response = await postChunked(`${ctx.gateway.url}/api/media.php`, ctx.workspace.authorization, [['file', { bytes: padded(sampleFile('image').bytes, 6 * 1024 * 1024), filename: 'big.png' }]])
      expect(await response.json()).toMatchObject({ code: 'unsupported_media', error: expect.stringMatching(/5 MB/) })
      expect(uploadsSeen(ctx.gateway)).toBe(before)
    })

    it('no file part, two file parts, a file under another name, a body that is not multipart', async () => {
      const before = uploadsSeen(ctx.gateway)
      const png = { bytes: sampleFile('image').bytes, filename: 'a.png' }
      expect((await upload(ctx.gateway, ctx.workspace.authorization, [['phone_number_id', '106540352242922']])).body).toMatchObject({ code: 'invalid_request', field: 'file' })
      expect((await upload(ctx.gateway, ctx.workspace.authorization, [['media', png]])).body).toMatchObject({ code: 'invalid_request', field: 'media' })
      expect((await upload(ctx.gateway, ctx.workspace.authorization, [['phone_number_id', '999']])).body).toMatchObject({ code: 'invalid_request', field: 'file' })
      const json = await fetch(`${ctx.gateway.url}/api/media.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json' }, body: '{}' })
      expect(json.status).toBe(415)
      expect(uploadsSeen(ctx.gateway)).toBe(before)
      // a second file part: the first went up, and is withdrawn
      const twice = await upload(ctx.gateway, ctx.workspace.authorization, [['file', png], ['file', png]])
      expect(twice.body).toMatchObject({ code: 'invalid_request', field: 'file' })
    })
  })

  it.each([
    ['an image', () => sampleFile('image').bytes, 5 * 1024 * 1024, 'image/png', '5 MB (5242880 bytes)'],
    ['a static sticker', (size: number) => webpSticker(false, size), 100 * 1024, 'image/webp', '100 KB (102400 bytes)'],
    ['an animated sticker', (size: number) => webpSticker(true, size), 500 * 1024, 'image/webp', '500 KB (512000 bytes)']
  ] as const)('takes %s of exactly its limit and refuses one byte more, naming the limit in MB or KB and bytes', async (_kind, make, limit, mime, label) => {
    const sized = (size: number) => { const bytes = make(size); return bytes.length === size ? bytes : padded(bytes, size) }
    const at = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: sized(limit), filename: 'at-limit' }]])
    expect(at.body).toMatchObject({ ok: true, mime_type: mime, file_size: limit })
    const before = uploadsSeen(ctx.gateway)
    const over = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: sized(limit + 1), filename: 'over-limit' }]])
    expect(over.status).toBe(422)
    expect(over.body).toMatchObject({ ok: false, code: 'unsupported_media', field: 'file', error: expect.stringContaining(`larger than ${label}`) })
    expect(uploadsSeen(ctx.gateway)).toBe(before)
  })

  it('uploads from the number phone_number_id names; a different number after the file is refused and the upload withdrawn', async () => {
    const png = { bytes: sampleFile('image').bytes, filename: 'a.png' }
    const second = '106540352242923'
    expect((await upload(ctx.gateway, ctx.workspace.authorization, [['phone_number_id', second], ['file', png]])).status).toBe(200)
    expect(ctx.gateway.emulator.requests.filter(request => request.path === `/${second}/media`)).toHaveLength(1)
    const late = await upload(ctx.gateway, ctx.workspace.authorization, [['file', png], ['phone_number_id', second]])
    expect(late.body).toMatchObject({ code: 'invalid_request', field: 'phone_number_id' })
    expect(ctx.gateway.emulator.requests.at(-1)).toMatchObject({ method: 'DELETE' })
    const unknown = await upload(ctx.gateway, ctx.workspace.authorization, [['phone_number_id', '42'], ['file', png]])
    expect(unknown.body).toMatchObject({ code: 'invalid_request', field: 'phone_number_id' })
  })

  it('is checked like a send first: 401, 403 for a plan without API access, 409 without a connection', async () => {
    const before = uploadsSeen(ctx.gateway)
    const png: [string, { bytes: Buffer, filename: string }] = ['file', { bytes: sampleFile('image').bytes, filename: 'a.png' }]
    expect((await upload(ctx.gateway, 'Bearer obk_live_nope', [png])).status).toBe(401)
    const starter = await connectedWorkspace(ctx.gateway, 'starter')
    expect((await upload(ctx.gateway, starter.authorization, [png])).body).toMatchObject({ code: 'plan_upgrade_required' })
    const unconnected = await ctx.gateway.app.workspaces.create('no connection', 'growth')
    const { secret } = await ctx.gateway.app.keys.create(unconnected.id, 'k')
    expect((await upload(ctx.gateway, `Bearer ${secret}`, [png])).body).toMatchObject({ code: 'no_active_connection' })
    expect(uploadsSeen(ctx.gateway)).toBe(before)
  })

  it('GET reads an upload back and downloads it; another workspace gets 404', async () => {
    const file = sampleFile('document')
    const { body } = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: file.bytes, filename: 'invoice.pdf' }]])
    const read = await fetch(`${ctx.gateway.url}/api/media.php?id=${body.media_id}`, { headers: { authorization: ctx.workspace.authorization } })
    expect(await read.json()).toEqual({ ...body, origin: 'upload', stored: false })
    const download = await fetch(`${ctx.gateway.url}/api/media.php?id=${body.media_id}&download=1`, { headers: { authorization: ctx.workspace.authorization } })
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('application/pdf')
    expect(download.headers.get('content-length')).toBe(String(file.bytes.length))
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="invoice.pdf"; filename*=UTF-8\'\'invoice.pdf')
    expect(Buffer.from(await download.arrayBuffer()).equals(file.bytes)).toBe(true)
    const other = await connectedWorkspace(ctx.gateway)
    for (const query of [`id=${body.media_id}`, `id=${body.media_id}&download=1`, 'id=123']) {
      const response = await fetch(`${ctx.gateway.url}/api/media.php?${query}`, { headers: { authorization: other.authorization } })
      expect(response.status, query).toBe(404)
      expect(await response.json()).toMatchObject({ ok: false, code: 'not_found' })
    }
    const bad = await fetch(`${ctx.gateway.url}/api/media.php?id=a/b`, { headers: { authorization: other.authorization } })
    expect(await bad.json()).toMatchObject({ code: 'invalid_request', field: 'id' })
  })
})

describe('POST /api/media.php under a small MEDIA_MAX_BYTES', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), MEDIA_MAX_BYTES: '100000' } })

  it('answers 413 naming the limit, before or while reading, nothing sent upstream', async () => {
    const bytes = padded(sampleFile('document').bytes, 150_000)
    const { status, body } = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes, filename: 'a.pdf' }]])
    expect(status).toBe(413)
    expect(body).toMatchObject({ ok: false, code: 'payload_too_large', error: expect.stringContaining('larger than 100000 bytes') })
    const chunked = await postChunked(`${ctx.gateway.url}/api/media.php`, ctx.workspace.authorization, [['file', { bytes, filename: 'a.pdf' }]])
    expect(chunked.status).toBe(413)
    // a send carrying its file is bounded by the same limit
    const send = await postChunked(`${ctx.gateway.url}/api/messages.php`, ctx.workspace.authorization, [['to', '15551234567'], ['type', 'document'], ['file', { bytes, filename: 'a.pdf' }]])
    expect(await send.json()).toMatchObject({ ok: false, code: 'payload_too_large', error: expect.stringContaining('100000') })
    expect(uploadsSeen(ctx.gateway)).toBe(0)
    expect(ctx.gateway.emulator.sentMessages).toHaveLength(0)
  })
  it('takes a file of exactly MEDIA_MAX_BYTES and refuses one byte more (413, stating the limit in bytes), nothing sent upstream', async () => {
    const at = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: padded(sampleFile('document').bytes, 100_000), filename: 'a.pdf' }]])
    expect(at.body).toMatchObject({ ok: true, file_size: 100_000 })
    const before = { uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }
    const over = padded(sampleFile('document').bytes, 100_001)
    for (const response of [
      await postChunked(`${ctx.gateway.url}/api/media.php`, ctx.workspace.authorization, [['file', { bytes: over, filename: 'a.pdf' }]]),
      await postChunked(`${ctx.gateway.url}/api/messages.php`, ctx.workspace.authorization, [['to', '15551234567'], ['type', 'document'], ['file', { bytes: over, filename: 'a.pdf' }]])
    ]) {
      expect(response.status).toBe(413)
      expect(await response.json()).toMatchObject({ ok: false, code: 'payload_too_large', error: 'The file is larger than 100000 bytes, the limit of this gateway (MEDIA_MAX_BYTES)' })
    }
    expect({ uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }).toEqual(before)
  })
})
