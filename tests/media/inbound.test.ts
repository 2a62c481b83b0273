import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inboundList } from '../../src/cli/commands/lists.js'
import type { Runtime } from '../../src/runtime.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { pngImage, sampleFile } from '../../src/sandbox/sample-media.js'
import { connectedWorkspace } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver } from '../events/receiver.js'
import { useMediaDir } from './helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('inbound media: mirrored at receipt, served from the mirror', () => {
  const mediaDir = useMediaDir()
  const ctx = useGateway({ env: { MEDIA_DIR: mediaDir, WEBHOOKS_ALLOW_PRIVATE: 'true' } })
  const get = async (query: string, authorization = ctx.workspace.authorization) => await fetch(`${ctx.gateway.url}/api/media.php?${query}`, { headers: { authorization } })
  const stored = async (mediaId: string) => await waitFor(async () => {
    const body = await (await get(`id=${mediaId}`)).json() as Record<string, unknown>
    return body.stored === true && body
  }, { what: `media ${mediaId} stored`, timeoutMs: 15_000 })

  it('announces the file at receipt (message.received, stored false), stores it checked against its SHA-256, and serves it after the upstream forgot it', async () => {
    const receiver = await startReceiver()
    await subscribe(ctx.gateway.app, ctx.workspace.workspaceId, receiver.url, ['message.received'])
    const bytes = pngImage(32, 32, 7)
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png', caption: 'my receipt' } })
    const event = await waitFor(async () => receiver.events().find(entry => entry.type === 'message.received'), { what: 'message.received' })
    expect(event.data.media).toEqual({ id: mediaId, mime_type: 'image/png', file_size: null, sha256: sha256(bytes), caption: 'my receipt', filename: null, stored: false })

    const metadata = await stored(mediaId!)
    expect(metadata).toEqual({ ok: true, media_id: mediaId, type: 'image', mime_type: 'image/png', file_size: bytes.length, sha256: sha256(bytes), expires_at: expect.any(String), origin: 'inbound', stored: true })
    // content-addressed: the file's name is its SHA-256
    expect(readdirSync(join(mediaDir, sha256(bytes).slice(0, 2)))).toEqual([sha256(bytes)])

    ctx.gateway.emulator.expireMedia(mediaId!)
    const download = await get(`id=${mediaId}&download=1`)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('image/png')
    expect(download.headers.get('content-length')).toBe(String(bytes.length))
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true)
    expect(ctx.gateway.emulator.requests.filter(request => request.path.startsWith('/whatsapp_business/attachments'))).toHaveLength(1)
    await receiver.close()
  })

  it('retries a failed download with backoff until it is stored', async () => {
    ctx.gateway.emulator.failMediaDownloads(1)
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'document', media: { ...sampleFile('document'), filename: 'contract.pdf' } })
    await stored(mediaId!)
    const download = await get(`id=${mediaId}&download=1`)
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="contract.pdf"; filename*=UTF-8\'\'contract.pdf')
  })

  it('never stores bytes that differ from the upstream\'s SHA-256: retried until the right ones come', async () => {
    const bytes = pngImage(24, 24, 5)
    ctx.gateway.emulator.failMediaDownloads(1) // the first attempt fails: time to tamper with what the next one gets
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    const held = ctx.gateway.emulator.media(mediaId!)!
    const tampered = Buffer.from(bytes)
    tampered[tampered.length - 1] ^= 0xff
    held.bytes = tampered
    await waitFor(async () => held.downloads >= 1, { what: 'a download of the tampered bytes', timeoutMs: 15_000 })
    expect((await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!))?.storedAt).toBeNull()
    held.bytes = bytes
    await stored(mediaId!)
    expect(readdirSync(mediaDir).flatMap(dir => dir.length === 2 ? readdirSync(join(mediaDir, dir)) : [])).not.toContain(sha256(tampered))
    expect(Buffer.from(await (await get(`id=${mediaId}&download=1`)).arrayBuffer()).equals(bytes)).toBe(true)
  }, 30_000)

  it('reads media without a connection (the checks of reading messages: no 409)', async () => {
    const unconnected = await ctx.gateway.app.workspaces.create('media reader without connection', 'growth')
    const { secret } = await ctx.gateway.app.keys.create(unconnected.id, 'k')
    const response = await get('id=123', `Bearer ${secret}`)
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('takes voice notes as audio, and the same bytes sent twice are stored once', async () => {
    const voice = sampleFile('audio')
    const first = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'audio', media: { ...voice, voice: true } })
    const second = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654322', type: 'audio', media: voice })
    expect(await stored(first.mediaId!)).toMatchObject({ type: 'audio', mime_type: 'audio/ogg' })
    await stored(second.mediaId!)
    expect(readdirSync(join(mediaDir, sha256(voice.bytes).slice(0, 2))).filter(name => name === sha256(voice.bytes))).toHaveLength(1)
    // `outbound inbound list` shows the file as the API does (the command run on the server's stores)
    const listed = await inboundList.run({ workspace: ctx.workspace.workspaceId, limit: 50 }, { stores: ctx.gateway.app } as unknown as Runtime, ctx.gateway.app.config) as { messages: Array<{ media?: unknown }> }
    expect(listed.messages).toContainEqual(expect.objectContaining({ type: 'audio', media: { id: first.mediaId, mime_type: 'audio/ogg', file_size: voice.bytes.length, sha256: sha256(voice.bytes), caption: null, filename: null, stored: true } }))
  })

  it('gives up on an id already gone upstream, and says so; another workspace gets 404', async () => {
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type: 'video' })
    ctx.gateway.emulator.expireMedia(mediaId!)
    await waitFor(async () => (await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!))?.mirrorError, { what: 'the mirror giving up' })
    const download = await get(`id=${mediaId}&download=1`)
    expect(download.status).toBe(404)
    const other = await connectedWorkspace(ctx.gateway)
    const foreign = await get(`id=${mediaId}`, other.authorization)
    expect(foreign.status).toBe(404)
  })
})

describe('inbound media with MEDIA_MIRROR=off', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), MEDIA_MIRROR: 'off' } })

  it('stores nothing, and fetches from the upstream on each download while it has the file', async () => {
    const bytes = pngImage(16, 16, 3)
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    const row = await waitFor(async () => await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!), { what: 'the inbound media recorded' })
    expect(row.storedAt).toBeNull()
    for (let round = 1; round <= 2; round++) {
      const download = await fetch(`${ctx.gateway.url}/api/media.php?id=${mediaId}&download=1`, { headers: { authorization: ctx.workspace.authorization } })
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true)
      expect(ctx.gateway.emulator.media(mediaId!)!.downloads).toBe(round)
    }
    const metadata = await (await fetch(`${ctx.gateway.url}/api/media.php?id=${mediaId}`, { headers: { authorization: ctx.workspace.authorization } })).json()
    expect(metadata).toMatchObject({ stored: false, file_size: bytes.length, sha256: sha256(bytes) })
    ctx.gateway.emulator.expireMedia(mediaId!)
    const gone = await fetch(`${ctx.gateway.url}/api/media.php?id=${mediaId}&download=1`, { headers: { authorization: ctx.workspace.authorization } })
    expect(gone.status).toBe(404)
  })
})
