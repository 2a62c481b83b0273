import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import { S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { startChild } from './child.js'
import { machine, mib, table } from './lib.js'
import { uploadOnce } from './media.js'

// Issue 42's figures, MEDIA_STORE=s3 against s3rver. (1) One document of BENCH_MEDIA_BYTES (default
// 100 MB) uploaded through POST /api/media.php (checked, uploaded upstream, stored in the bucket),
// beside a bare pipe of as many bytes to the same server (lib-storage's Upload from a stream, no
// gateway), in turns (BENCH_MEDIA_ROUNDS each): the gateway's throughput over the pipe's (target
// ≥ 0.7×) and its peak RSS rise (≤ 30 MB). (2) BENCH_MEDIA_INBOUND (default 1,000) customers' images
// mirrored into the bucket: each stored once (one object each, none fetched twice).
const BYTES = Number(process.env.BENCH_MEDIA_BYTES ?? 100_000_000)
const ROUNDS = Number(process.env.BENCH_MEDIA_ROUNDS ?? 3)
const INBOUND = Number(process.env.BENCH_MEDIA_INBOUND ?? 1000)
const VERIFY_TOKEN = 'bench-verify-token'

async function pipeOnce (env: Record<string, string>, key: string): Promise<number> {
  const client = new S3Client({
    endpoint: env.S3_ENDPOINT, region: env.S3_REGION, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY }
  })
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  async function * bytes (): AsyncGenerator<Buffer> {
    for (let left = BYTES; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left)
  }
  const started = performance.now()
  await new Upload({ client, params: { Bucket: env.S3_BUCKET, Key: key, Body: Readable.from(bytes(), { objectMode: false }) } }).done()
  client.destroy()
  return (performance.now() - started) / 1000
}

export async function benchMediaS3 (): Promise<string> {
  const mediaDir = await mkdtemp(join(tmpdir(), 'outbound-bench-media-s3-'))
  const s3 = await startChild<{ env: Record<string, string> }>('s3')
  const emulator = await startChild<{ url: string, appSecret: string }>('media-emulator')
  const gateway = await startChild<{ url: string, authorization: string }>('media-gateway', { ...s3.ready.env, GRAPH_API_URL: emulator.ready.url, APP_SECRET: emulator.ready.appSecret, WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN, MEDIA_DIR: mediaDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' })
  try {
    const seconds = { gateway: [] as number[], pipe: [] as number[] }
    let rise = 0
    for (let round = 0; round < ROUNDS; round++) {
      seconds.pipe.push(await pipeOnce(s3.ready.env, `bench/pipe-${round}`))
      const before = (await gateway.call<{ now: number }>('rss')).now
      await gateway.call('resetPeak')
      seconds.gateway.push(await uploadOnce(`${gateway.ready.url}/api/media.php`, gateway.ready.authorization, {}))
      rise = Math.max(rise, (await gateway.call<{ peak: number }>('rss')).peak - before)
      await emulator.call('reset')
    }
    const best = (values: number[]) => Math.min(...values)
    const rate = (value: number) => mib(BYTES) / value
    const upload = table(['path', 'MiB/s', 'vs pipe', 'peak RSS rise MiB'], [
      ['bare pipe (lib-storage Upload to s3rver)', rate(best(seconds.pipe)), '1.00×', '-'],
      ['gateway: POST /api/media.php, MEDIA_STORE=s3', rate(best(seconds.gateway)), `${(best(seconds.pipe) / best(seconds.gateway)).toFixed(2)}×`, mib(rise)]
    ])

    const objectsBefore = (await s3.call<string[]>('keys', 'media/')).length
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
    const objects = (await s3.call<string[]>('keys', 'media/')).length - objectsBefore
    const left = (await readdir(mediaDir, { recursive: true, withFileTypes: true })).filter(entry => entry.isFile()).length
    const mirror = table(['images sent', 'stored', 'objects in the bucket', 'downloads', 'most per image', 'files left in MEDIA_DIR', 'seconds', 'images/s'],
      [[...[INBOUND, mirrored.stored, objects, downloads.total, downloads.most, left].map(String), took, mirrored.stored / took]])
    return `Upload of one ${(BYTES / 1e6).toFixed(0)} MB document, best of ${ROUNDS} each, in turns (${machine()}); RSS rise: the gateway's peak during its uploads over its RSS before each.\n\n` +
      upload + `\n\nInbound mirroring into the bucket: ${INBOUND} customers' images (each its own bytes), 16 webhooks in flight; until every one is stored.\n\n${mirror}`
  } finally {
    await gateway.stop()
    await Promise.all([emulator.stop(), s3.stop()])
    await rm(mediaDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchMediaS3())
}
