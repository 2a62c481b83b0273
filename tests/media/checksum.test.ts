import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { pngImage } from '../../src/sandbox/sample-media.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { useMediaDir } from './helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id

/** CONTRACT.md 13: a download that fails the upstream's SHA-256 is neither stored nor served. */
describe('a download failing its SHA-256, with the mirror on', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir() } })
  const download = async (mediaId: string) => await fetch(`${ctx.gateway.url}/api/media.php?id=${mediaId}&download=1`, { headers: { authorization: ctx.workspace.authorization } })

  it('is fetched again, and answers 502 without the bytes while the upstream keeps sending wrong ones', async () => {
    const bytes = pngImage(24, 24, 9)
    ctx.gateway.emulator.corruptMediaDownloads(1_000)
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    const held = ctx.gateway.emulator.media(mediaId!)!
    await waitFor(async () => held.downloads >= 1, { what: 'the mirror fetching the altered bytes', timeoutMs: 15_000 })
    expect((await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!))?.storedAt).toBeNull()

    const before = held.downloads
    const refused = await download(mediaId!)
    expect(refused.status).toBe(502)
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await refused.json()).toEqual({ ok: false, code: 'upstream_invalid_response', error: expect.stringMatching(/SHA-256/) })
    // the mirror may fetch too meanwhile: at least the download's two attempts
    expect(held.downloads - before).toBeGreaterThanOrEqual(2)

    ctx.gateway.emulator.corruptMediaDownloads(0)
    const served = await download(mediaId!)
    expect(served.status).toBe(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
  }, 30_000)
})

describe('a download failing its SHA-256, with MEDIA_MIRROR=off', () => {
  const mediaDir = useMediaDir()
  const ctx = useGateway({ env: { MEDIA_DIR: mediaDir, MEDIA_MIRROR: 'off' } })
  const download = async (mediaId: string) => await fetch(`${ctx.gateway.url}/api/media.php?id=${mediaId}&download=1`, { headers: { authorization: ctx.workspace.authorization } })
  const inbound = async (bytes: Buffer) => {
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    await waitFor(async () => await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!), { what: 'the inbound media recorded' })
    return mediaId!
  }

  it('serves the right bytes when the second fetch brings them', async () => {
    const bytes = pngImage(20, 20, 4)
    const mediaId = await inbound(bytes)
    ctx.gateway.emulator.corruptMediaDownloads(1)
    const served = await download(mediaId)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-length')).toBe(String(bytes.length))
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
    expect(ctx.gateway.emulator.media(mediaId)!.downloads).toBe(2)
    // checked whole in a spool, which goes once served: nothing is kept with the mirror off
    await waitFor(async () => readdirSync(join(mediaDir, 'tmp')).length === 0, { what: 'the spool discarded' })
    expect(readdirSync(mediaDir)).toEqual(['tmp'])
  })

  it('answers 502 when both fetches bring wrong bytes, and serves none of them', async () => {
    const mediaId = await inbound(pngImage(20, 20, 6))
    ctx.gateway.emulator.corruptMediaDownloads(2)
    const refused = await download(mediaId)
    expect(refused.status).toBe(502)
    expect(await refused.json()).toEqual({ ok: false, code: 'upstream_invalid_response', error: expect.stringMatching(/SHA-256/) })
    expect(ctx.gateway.emulator.media(mediaId)!.downloads).toBe(2)
  })
})
