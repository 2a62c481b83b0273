// Memory of CSV campaign uploads (CONTRACT.md 15): BENCH_UPLOADS (default 8) uploads of
// BENCH_UPLOAD_ROWS (default 100,000) rows each, BENCH_UPLOAD_CONCURRENCY at a time (default 1), to a
// gateway process of its own (bench/children/gateway.ts) on TEST_DATABASE_URL's PostgreSQL when set,
// else the embedded database on disk (a temporary DATA_DIR). The gateway's RSS and V8 heap after a
// full collection before the uploads, the peak RSS during them, its RSS idle as it is at once and
// BENCH_UPLOAD_SETTLE_S later (default 10,30), then after a full collection.
// BENCH_UPLOAD_SNAPSHOTS=<dir>: heap snapshots before and after.
// Smoke run: BENCH_UPLOADS=2 BENCH_UPLOAD_ROWS=5000 BENCH_UPLOAD_SETTLE_S=1 npx tsx bench/campaign-upload-memory.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createPostgresDatabase } from '../tests/helpers/database.js'
import { multipart } from '../tests/messages/helpers.js'
import { startChild } from './child.js'
import { load, machine, mib, table } from './lib.js'

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 8)
const ROWS = Number(process.env.BENCH_UPLOAD_ROWS ?? 100_000)
const CONCURRENCY = Number(process.env.BENCH_UPLOAD_CONCURRENCY ?? 1)
const SETTLE_S = (process.env.BENCH_UPLOAD_SETTLE_S ?? '10,30').split(',').map(Number)
const SNAPSHOTS = process.env.BENCH_UPLOAD_SNAPSHOTS

interface Memory { rss: number, heapTotal: number, heapUsed: number, external: number, arrayBuffers: number }

const database = process.env.TEST_DATABASE_URL ? await createPostgresDatabase(process.env.TEST_DATABASE_URL) : undefined
const emulator = await startChild<{ url: string }>('emulator')
// the embedded database on disk, as deployed (in memory, its files would be the WASM heap's)
const dataDir = database ? undefined : mkdtempSync(join(tmpdir(), 'outbound-upload-memory-'))
const gateway = await startChild<{ url: string, authorization: string }>('gateway', {
  GRAPH_API_URL: emulator.ready.url, RATE_LIMIT_MAX: '100000000', ...(database ? { BENCH_GATEWAY_DATABASE_URL: database.url } : { BENCH_GATEWAY_DATA_DIR: dataDir! })
})
try {
  const { url, authorization } = gateway.ready
  // scheduled a day ahead: the uploads are measured, not the drain
  const later = new Date(Date.now() + 24 * 3600_000).toISOString()
  const upload = async (index: number) => {
    const body = multipart([['name', `upload ${index}`], ['template', 'order_confirmation'], ['language', 'en_US'], ['send_at', later]],
      { field: 'file', filename: 'recipients.csv', content: 'to,1\n' + Array.from({ length: ROWS }, (_, row) => `1777${String(index * ROWS + row).padStart(7, '0')},R-${index}-${row}`).join('\n') + '\n' })
    const response = await fetch(`${url}/api/campaigns.php`, { method: 'POST', headers: { authorization, ...body.headers }, body: body.payload })
    if (response.status !== 201) throw new Error(`upload ${index}: ${response.status} ${(await response.text()).slice(0, 300)}`)
    await response.arrayBuffer()
  }
  // one small upload first: every route, plan and statement on the path has been used once
  await upload(UPLOADS)
  await sleep(1000)
  const before = await gateway.call<Memory>('memoryAfterGc')
  if (SNAPSHOTS) await gateway.call('heapSnapshot', join(SNAPSHOTS, 'before.heapsnapshot'))
  await gateway.call('resetPeak')
  const started = Date.now()
  await load(UPLOADS, CONCURRENCY, upload)
  const seconds = (Date.now() - started) / 1000
  const { peak } = await gateway.call<{ peak: number }>('rss')
  // idle as it is (no collection forced: what an operator sees), then after a full collection
  const idle: Array<[string, number]> = []
  for (const at of [0, ...SETTLE_S]) {
    await sleep((at - (idle.length === 0 ? 0 : SETTLE_S[idle.length - 1])) * 1000)
    idle.push([`idle ${at} s after, as it is`, (await gateway.call<Memory>('memory')).rss])
  }
  const settled = await gateway.call<Memory>('memoryAfterGc')
  if (SNAPSHOTS) await gateway.call('heapSnapshot', join(SNAPSHOTS, 'after.heapsnapshot'))
  const row = (label: string, memory: Memory) => [label, mib(memory.rss).toFixed(0), mib(memory.heapTotal).toFixed(1), mib(memory.heapUsed).toFixed(1), mib(memory.external).toFixed(1), mib(memory.arrayBuffers).toFixed(1)]
  console.log(`# bench/campaign-upload-memory.ts — ${UPLOADS} CSV uploads of ${ROWS} rows, ${CONCURRENCY} at a time, in ${seconds.toFixed(1)} s, ${database ? 'PostgreSQL' : 'PGlite on disk'} (${machine()})\n`)
  console.log(table(['gateway process', 'RSS MiB', 'heapTotal MiB', 'heapUsed MiB', 'external MiB', 'arrayBuffers MiB'], [
    row('before (after a full gc)', before),
    ['peak RSS during the uploads', mib(peak).toFixed(0), '-', '-', '-', '-'],
    ...idle.map(([label, rss]) => [label, mib(rss).toFixed(0), '-', '-', '-', '-']),
    row('then after a full gc', settled)
  ]))
} finally {
  await gateway.stop()
  await emulator.stop()
  await database?.drop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
}
