import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { s3Settings, s3Storage } from '../../src/media/s3-storage.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { pngImage, sampleFile } from '../../src/sandbox/sample-media.js'
import { runCli } from '../helpers/cli.js'
import { testConfig } from '../helpers/config.js'
import type { FaultProxy } from '../helpers/fault-proxy.js'
import { startS3, type TestS3 } from '../helpers/s3.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { padded, upload, useMediaDir } from './helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const files = (dir: string) => existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter(entry => entry.isFile()).map(entry => entry.name) : []

let s3: TestS3
let proxy: FaultProxy
beforeAll(async () => {
  s3 = await startS3()
  proxy = await s3.proxy()
})
afterAll(async () => { await s3?.close() })

describe('MEDIA_STORE=s3: uploads and the mirror stored as objects named by their SHA-256', () => {
  const mediaDir = useMediaDir()
  const ctx = useGateway({ env: async () => ({ MEDIA_DIR: mediaDir, ...s3.env(proxy) }) })
  const get = async (query: string) => await fetch(`${ctx.gateway.url}/api/media.php?${query}`, { headers: { authorization: ctx.workspace.authorization } })
  const stored = async (mediaId: string, timeoutMs = 15_000) => await waitFor(async () => {
    const body = await (await get(`id=${mediaId}`)).json() as Record<string, unknown>
    return body.stored === true && body
  }, { what: `media ${mediaId} stored`, timeoutMs })

  it('stores an upload (a multipart upload for a large one), keeps no copy on disk, and serves it after the upstream forgot it', async () => {
    const bytes = padded(sampleFile('document').bytes, 40 * 1024 * 1024)
    const { status, body } = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes, filename: 'big.pdf' }]])
    expect(status).toBe(200)
    expect(body.sha256).toBe(sha256(bytes))
    expect(await s3.keys()).toContain(`media/${sha256(bytes)}`)
    expect(files(mediaDir)).toEqual([])
    ctx.gateway.emulator.expireMedia(String(body.media_id))
    const download = await get(`id=${body.media_id}&download=1`)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-length')).toBe(String(bytes.length))
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(bytes))
  })

  it('mirrors inbound media into the bucket, the same bytes twice as one object', async () => {
    const bytes = pngImage(40, 40, 3)
    const first = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    const second = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654322', media: { bytes, mimeType: 'image/png' } })
    await stored(first.mediaId!)
    await stored(second.mediaId!)
    expect((await s3.keys()).filter(key => key === `media/${sha256(bytes)}`)).toHaveLength(1)
    expect(files(mediaDir)).toEqual([])
    ctx.gateway.emulator.expireMedia(first.mediaId!)
    expect(Buffer.from(await (await get(`id=${first.mediaId}&download=1`)).arrayBuffer()).equals(bytes)).toBe(true)
  })

  it('with the store unreachable: a download and an upload are 503 media_store_unavailable, metadata as usual; a file that arrived meanwhile is stored once it answers', async () => {
    const bytes = pngImage(20, 20, 9)
    const before = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'image/png' } })
    await stored(before.mediaId!)
    proxy.cut()
    try {
      const download = await get(`id=${before.mediaId}&download=1`)
      expect(download.status).toBe(503)
      expect(Number(download.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(Number(download.headers.get('retry-after'))).toBeLessThanOrEqual(5)
      expect(await download.json()).toMatchObject({ ok: false, code: 'media_store_unavailable' })
      expect((await get(`id=${before.mediaId}`)).status).toBe(200)
      const refused = await upload(ctx.gateway, ctx.workspace.authorization, [['file', { bytes: pngImage(8, 8, 1), filename: 'a.png' }]])
      expect(refused).toMatchObject({ status: 503, body: { ok: false, code: 'media_store_unavailable' } })

      const late = pngImage(22, 22, 4)
      const during = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes: late, mimeType: 'image/png' } })
      // the mirror asks the store first (it knows the SHA-256 from the webhook): nothing is fetched in vain meanwhile
      await new Promise(resolve => setTimeout(resolve, 1500))
      expect(ctx.gateway.emulator.requests.filter(request => request.path === `/${during.mediaId}`)).toEqual([])
      expect((await ctx.gateway.app.media.find(ctx.workspace.workspaceId, during.mediaId!))?.storedAt).toBeNull()
      proxy.heal()
      await stored(during.mediaId!, 10_000)
      expect(await s3.keys()).toContain(`media/${sha256(late)}`)
    } finally {
      proxy.heal()
    }
  }, 60_000)
})

describe('the s3 store\'s calls', () => {
  const spools = useMediaDir()
  it('keeps checked bytes once, reads and stats them, and remove() deletes the object', async () => {
    const storage = s3Storage(s3Settings(testConfig(s3.env())), spools)
    const bytes = Buffer.from('an object of its own')
    const spool = await storage.spool()
    await new Promise<void>((resolve, reject) => { const out = spool.writable(); out.on('error', reject); out.end(bytes, resolve) })
    await spool.keep(sha256(bytes))
    expect(await storage.stat(sha256(bytes))).toEqual({ size: bytes.length })
    const opened = await storage.open(sha256(bytes))
    expect(Buffer.concat(await (opened!.stream as Readable).toArray())).toEqual(bytes)
    expect(await storage.remove(sha256(bytes))).toBe(true)
    expect(await storage.remove(sha256(bytes))).toBe(false)
    expect(await storage.stat(sha256(bytes))).toBeUndefined()
    expect(await storage.open(sha256(bytes))).toBeUndefined()
    expect(await s3.keys()).not.toContain(`media/${sha256(bytes)}`)
  })
})

describe('outbound media migrate --to s3', () => {
  const mediaDir = useMediaDir()

  it('copies the files of MEDIA_DIR into the bucket, leaves them in place, and copies none the second time', async () => {
    const contents = [Buffer.from('first file to migrate'), Buffer.from('second file to migrate')]
    for (const bytes of contents) {
      mkdirSync(join(mediaDir, sha256(bytes).slice(0, 2)), { recursive: true })
      writeFileSync(join(mediaDir, sha256(bytes).slice(0, 2), sha256(bytes)), bytes)
    }
    const env = { DATABASE_URL: 'memory://', MEDIA_DIR: mediaDir, ...s3.env(), MEDIA_STORE: 'fs' }
    const first = await runCli(['media', 'migrate', '--to', 's3'], env)
    expect(first).toMatchObject({ code: 0, json: { ok: true, copied: 2, present: 0 } })
    for (const bytes of contents) expect(await s3.keys()).toContain(`media/${sha256(bytes)}`)
    expect(files(mediaDir)).toHaveLength(2)
    const second = await runCli(['media', 'migrate', '--to', 's3'], env)
    expect(second).toMatchObject({ code: 0, json: { ok: true, copied: 0, present: 2 } })
    expect(await runCli(['media', 'migrate', '--to', 'gcs'], env)).toMatchObject({ code: 2 })
  }, 60_000)
})

describe('MEDIA_STORE=s3: an erasure removes the person\'s files from the bucket (CONTRACT.md 17)', () => {
  const mediaDir = useMediaDir()
  const ctx = useGateway({ env: async () => ({ MEDIA_DIR: mediaDir, ...s3.env(proxy) }) })

  it('deletes the object of a file only the erased person sent, and keeps another person\'s', async () => {
    const theirs = pngImage(30, 30, 11)
    const others = pngImage(30, 30, 12)
    const erased = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557650001', media: { bytes: theirs, mimeType: 'image/png' } })
    const kept = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557650002', media: { bytes: others, mimeType: 'image/png' } })
    for (const mediaId of [erased.mediaId!, kept.mediaId!]) {
      await waitFor(async () => (await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId))?.storedAt instanceof Date, { what: `media ${mediaId} stored`, timeoutMs: 15_000 })
    }
    expect(await s3.keys()).toEqual(expect.arrayContaining([`media/${sha256(theirs)}`, `media/${sha256(others)}`]))
    const asked = await fetch(`${ctx.gateway.url}/api/erasures.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json' }, body: JSON.stringify({ to: '15557650001' }) })
    expect(asked.status).toBe(202)
    const { erasure } = await asked.json() as { erasure: { id: string } }
    await waitFor(async () => {
      const read = await (await fetch(`${ctx.gateway.url}/api/erasures.php?id=${erasure.id}`, { headers: { authorization: ctx.workspace.authorization } })).json() as { erasure: { status: string } }
      return read.erasure.status === 'completed'
    }, { what: 'the erasure completed', timeoutMs: 30_000 })
    const keys = await s3.keys()
    expect(keys).not.toContain(`media/${sha256(theirs)}`)
    expect(keys).toContain(`media/${sha256(others)}`)
  })
})

