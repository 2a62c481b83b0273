import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import { request } from 'undici'
import { startChild } from './child.js'
import { machine, mib, table } from './lib.js'

// Issue 28's figures. (1) One document of BENCH_MEDIA_BYTES (default 100 MB) uploaded through
// POST /api/media.php, beside a bare node:http proxy piping the same bytes to the same emulator, in
// turns (BENCH_MEDIA_ROUNDS each): the gateway's peak RSS increase (target ≤ 30 MB) and its
// throughput over the proxy's (target ≥ 0.7×). (2) BENCH_MEDIA_INBOUND (default 1,000) customers'
// images mirrored: every one stored, none downloaded twice, and how long the mirror took.
const BYTES = Number(process.env.BENCH_MEDIA_BYTES ?? 100_000_000)
const ROUNDS = Number(process.env.BENCH_MEDIA_ROUNDS ?? 3)
const INBOUND = Number(process.env.BENCH_MEDIA_INBOUND ?? 1000)
const CHUNK = Buffer.alloc(64 * 1024, 0x20)
const VERIFY_TOKEN = 'bench-verify-token'

/** A multipart body of one PDF of BYTES bytes (its header, then spaces), produced as it is sent. */
export function multipartUpload (fields: Record<string, string>): { body: Readable, type: string, length: number } {
  const boundary = `----bench${randomBytes(8).toString('hex')}`
  const head = Buffer.from(Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="report.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const fileBytes = BYTES - '%PDF-1.4\n'.length
  async function * chunks (): AsyncGenerator<Buffer> {
    yield head
    for (let left = fileBytes; left > 0; left -= CHUNK.length) yield left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)
    yield tail
  }
  return { body: Readable.from(chunks(), { objectMode: false }), type: `multipart/form-data; boundary=${boundary}`, length: head.length + fileBytes + tail.length }
}

export async function uploadOnce (url: string, authorization: string | undefined, fields: Record<string, string>): Promise<number> {
  const upload = multipartUpload(fields)
  const started = performance.now()
  const response = await request(url, { method: 'POST', body: upload.body, headers: { 'content-type': upload.type, 'content-length': String(upload.length), ...(authorization && { authorization }) } })
  const answer = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`upload answered ${response.statusCode}: ${answer}`)
  return (performance.now() - started) / 1000
}

export async function benchMedia (): Promise<string> {
  const mediaDir = await mkdtemp(join(tmpdir(), 'outbound-bench-media-'))
  const emulator = await startChild<{ url: string, appSecret: string, token: string, phoneNumberId: string }>('media-emulator')
  const gateway = await startChild<{ url: string, authorization: string }>('media-gateway', { GRAPH_API_URL: emulator.ready.url, APP_SECRET: emulator.ready.appSecret, WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN, MEDIA_DIR: mediaDir })
  const proxy = await startChild<{ url: string }>('media-proxy', { BENCH_UPSTREAM_MEDIA_URL: `${emulator.ready.url}/${emulator.ready.phoneNumberId}/media`, BENCH_UPSTREAM_TOKEN: emulator.ready.token })
  try {
    const rows: (string | number)[][] = []
    const seconds = { gateway: [] as number[], proxy: [] as number[] }
    let rise = 0
    for (let round = 0; round < ROUNDS; round++) {
      seconds.proxy.push(await uploadOnce(proxy.ready.url, undefined, { messaging_product: 'whatsapp', type: 'application/pdf' }))
      await emulator.call('reset')
      const before = (await gateway.call<{ now: number }>('rss')).now
      await gateway.call('resetPeak')
      seconds.gateway.push(await uploadOnce(`${gateway.ready.url}/api/media.php`, gateway.ready.authorization, {}))
      rise = Math.max(rise, (await gateway.call<{ peak: number }>('rss')).peak - before)
      await emulator.call('reset')
    }
    const best = (values: number[]) => Math.min(...values)
    const rate = (value: number) => mib(BYTES) / value
    rows.push(['bare proxy (node:http pipe)', rate(best(seconds.proxy)), '1.00×', '-'])
    rows.push(['gateway: POST /api/media.php', rate(best(seconds.gateway)), `${(best(seconds.proxy) / best(seconds.gateway)).toFixed(2)}×`, mib(rise)])

    await emulator.call('subscribe', `${gateway.ready.url}/webhooks/whatsapp`, VERIFY_TOKEN)
    const started = performance.now()
    await emulator.call('injectImages', INBOUND, 16)
    let mirrored = { total: 0, stored: 0 }
    while (mirrored.stored < INBOUND && performance.now() - started < 600_000) {
      await new Promise(resolve => setTimeout(resolve, 100))
      mirrored = await gateway.call<{ total: number, stored: number }>('mirrored')
    }
    const took = (performance.now() - started) / 1000
    const downloads = await emulator.call<{ total: number, most: number, never: number }>('downloads')
    const files = (await Promise.all((await readdir(mediaDir)).filter(name => /^[0-9a-f]{2}$/.test(name)).map(async name => (await readdir(join(mediaDir, name))).length))).reduce((sum, count) => sum + count, 0)
    const mirror = table(['images sent', 'rows', 'stored', 'files in MEDIA_DIR', 'downloads', 'most per image', 'never fetched', 'seconds', 'images/s'],
      [[...[INBOUND, mirrored.total, mirrored.stored, files, downloads.total, downloads.most, downloads.never].map(String), took, mirrored.stored / took]])
    return `Upload of one ${(BYTES / 1e6).toFixed(0)} MB document, best of ${ROUNDS} each, in turns (${machine()}); RSS rise: the gateway's peak during its uploads over its RSS before each.\n\n` +
      table(['server', 'MiB/s', 'vs proxy', 'peak RSS rise MiB'], rows) +
      `\n\nInbound mirroring: ${INBOUND} customers' images (each its own bytes), 16 webhooks in flight; until every one is stored.\n\n${mirror}`
  } finally {
    await Promise.all([proxy.stop(), gateway.stop()])
    await emulator.stop()
    await rm(mediaDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchMedia())
}
