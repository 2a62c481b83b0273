import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { pngImage, sampleFile } from '../../src/sandbox/sample-media.js'
import { Browser, userIn } from '../dashboard/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { useMediaDir } from '../media/helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
const HTML = Buffer.from('<!doctype html><script>fetch("/api/messages.php").then(r => r.text()).then(alert)</script>')
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>')

/**
 * CONTRACT.md 13: a customer's file is served on our origin with the type it claims only when that
 * type is one of the upstream's media table; anything else is application/octet-stream, and every
 * download carries nosniff and a sandbox CSP, from the API and from the dashboard alike.
 */
describe('a customer\'s file is never served as a type it chose outside the media table', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir() } })
  const inbound = async (type: 'image' | 'document' | 'audio', media: { bytes: Buffer, mimeType: string, filename?: string }) => {
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', type, media })
    await waitFor(async () => (await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!))?.storedAt, { what: 'the mirror', timeoutMs: 15_000 })
    return mediaId!
  }
  const download = async (mediaId: string) => await fetch(`${ctx.gateway.url}/api/media.php?id=${mediaId}&download=1`, { headers: { authorization: ctx.workspace.authorization } })
  const hardened = (headers: Headers | Record<string, unknown>) => {
    const get = (name: string) => headers instanceof Headers ? headers.get(name) : headers[name]
    expect(get('x-content-type-options')).toBe('nosniff')
    expect(get('content-security-policy')).toBe('sandbox')
  }

  it('serves text/html and image/svg+xml from the API as application/octet-stream, an attachment, with nosniff and CSP sandbox', async () => {
    for (const [type, media] of [
      ['document', { bytes: HTML, mimeType: 'text/html', filename: 'invoice.html' }],
      ['image', { bytes: SVG, mimeType: 'image/svg+xml' }]
    ] as const) {
      const response = await download(await inbound(type, media))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/octet-stream')
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; /)
      hardened(response.headers)
      expect(Buffer.from(await response.arrayBuffer()).equals(media.bytes)).toBe(true)
    }
  })

  it('serves a type of the media table as itself (parameters dropped), with the same headers', async () => {
    for (const [type, media, served] of [
      ['document', { ...sampleFile('document'), filename: 'receipt.pdf' }, 'application/pdf'],
      ['image', { bytes: pngImage(8, 8, 1), mimeType: 'image/png' }, 'image/png'],
      ['audio', { ...sampleFile('audio'), mimeType: 'audio/ogg; codecs=opus' }, 'audio/ogg']
    ] as const) {
      const response = await download(await inbound(type, media))
      expect(response.headers.get('content-type')).toBe(served)
      hardened(response.headers)
    }
  })

  it('serves the dashboard\'s copy with the same rule: the HTML as an octet-stream download, a PNG inline, both sandboxed', async () => {
    const browser = await Browser.signIn(ctx.gateway.app, await userIn(ctx.gateway.app, ctx.workspace.workspaceId))
    const page = await inbound('document', { bytes: HTML, mimeType: 'text/html', filename: 'page.html' })
    for (const url of [`/dashboard/inbound/media/${page}`, `/dashboard/inbound/media/${page}?download=1`]) {
      const response = await browser.get(url)
      expect(response.statusCode).toBe(200)
      expect(response.headers['content-type']).toBe('application/octet-stream')
      expect(response.headers['content-disposition']).toMatch(/^attachment; /)
      hardened(response.headers)
    }
    const image = await browser.get(`/dashboard/inbound/media/${await inbound('image', { bytes: pngImage(8, 8, 2), mimeType: 'image/png' })}`)
    expect(image.headers['content-type']).toBe('image/png')
    expect(image.headers['content-disposition']).toMatch(/^inline; /)
    hardened(image.headers)
  })
})
