import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { pngImage, sampleFile } from '../../src/sandbox/sample-media.js'
import { graph, NUMBER, startCallback, subscribe, TOKEN, WABA } from './helpers.js'

const hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

async function uploadTo (emulator: Emulator, fields: Record<string, string>, file?: { bytes: Buffer, type: string }, token = TOKEN) {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  if (file) body.append('file', new Blob([file.bytes], { type: file.type }), 'f')
  const response = await fetch(`${emulator.url}/${NUMBER}/media`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body })
  return { status: response.status, body: await response.json() as Record<string, any> }
}

describe('emulator: media endpoints', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator({ mediaUrlTtlMs: 1000, strictMediaIds: true }) })
  beforeEach(() => emulator.reset())
  afterAll(() => emulator.close())

  it('uploads (multipart), describes the media with a URL that needs the token and expires, and deletes', async () => {
    const bytes = pngImage()
    const uploaded = await uploadTo(emulator, { messaging_product: 'whatsapp', type: 'image/png' }, { bytes, type: 'image/png' })
    expect(uploaded).toEqual({ status: 200, body: { id: expect.stringMatching(/^\d{16}$/) } })
    const node = await graph(emulator, 'GET', `/${uploaded.body.id}?phone_number_id=${NUMBER}`)
    expect(node.body).toEqual({ messaging_product: 'whatsapp', url: expect.stringContaining('/whatsapp_business/attachments/?mid='), mime_type: 'image/png', sha256: hex(bytes), file_size: bytes.length, id: uploaded.body.id })
    expect((await fetch(node.body.url)).status).toBe(401)
    const fetched = await fetch(node.body.url, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true)
    expect(emulator.media(uploaded.body.id)!.downloads).toBe(1)
    await new Promise(resolve => setTimeout(resolve, 2100)) // the TTL (1 s), rounded up to the second as `ext` is
    expect((await fetch(node.body.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404)
    expect((await graph(emulator, 'DELETE', `/${uploaded.body.id}`)).body).toEqual({ success: true })
    expect((await graph(emulator, 'GET', `/${uploaded.body.id}`)).body.error).toMatchObject({ code: 100, error_subcode: 33 })
  })

  it('refuses uploads as the upstream does: messaging_product, file, type and size', async () => {
    const png = { bytes: pngImage(), type: 'image/png' }
    expect((await uploadTo(emulator, { type: 'image/png' }, png)).body.error.code).toBe(100)
    expect((await uploadTo(emulator, { messaging_product: 'whatsapp', type: 'image/png' })).body.error.code).toBe(100)
    expect((await uploadTo(emulator, { messaging_product: 'whatsapp', type: 'image/gif' }, png)).body.error.code).toBe(131053)
    expect((await uploadTo(emulator, { messaging_product: 'whatsapp', type: 'image/png' }, { bytes: Buffer.alloc(6 * 1024 * 1024), type: 'image/png' })).body.error.code).toBe(131053)
    expect((await uploadTo(emulator, { messaging_product: 'whatsapp', type: 'image/png' }, png, 'wrong-token')).status).toBe(401)
  })

  it('sends by media id only for an id it holds (strictMediaIds), and not once it expired', async () => {
    const id = emulator.addMedia(WABA, { bytes: pngImage(), mimeType: 'image/png' })
    const send = async (mediaId: string) => await graph(emulator, 'POST', `/${NUMBER}/messages`, { body: { messaging_product: 'whatsapp', to: '15551234567', type: 'image', image: { id: mediaId } } })
    expect((await send(id)).status).toBe(200)
    expect((await send('1234567890')).body.error.code).toBe(131053)
    emulator.expireMedia(id)
    expect((await send(id)).body.error.code).toBe(131053)
  })

  it('injects inbound media: the webhook carries its id, type and SHA-256 in base64', async () => {
    const callback = await startCallback(emulator.appSecret)
    await subscribe(emulator, callback.url)
    const bytes = sampleFile('document').bytes
    const { mediaId } = await emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'document', media: { bytes, mimeType: 'application/pdf', filename: 'a.pdf', caption: 'see' } })
    const message = callback.received[0].body.entry[0].changes[0].value.messages[0]
    expect(message.document).toEqual({ id: mediaId, mime_type: 'application/pdf', sha256: Buffer.from(hex(bytes), 'hex').toString('base64'), filename: 'a.pdf', caption: 'see' })
    const voice = await emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'audio' })
    expect(emulator.media(voice.mediaId!)!.mimeType).toBe('audio/ogg')
    await callback.close()
  })
})
