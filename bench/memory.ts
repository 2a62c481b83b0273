import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { startChild } from './child.js'
import { mib, table } from './lib.js'

// Memory with a deep queue: WAITING requests held in the pacer (one message a second, so they stay),
// each on a connection of its own as real clients would be. Peak RSS of the gateway's process.
const WAITING = Number(process.env.BENCH_MEMORY_WAITING ?? 10_000)
const BATCH = 250

const failures = new Map<string, number>()

function fire (url: string, authorization: string, index: number): void {
  const call = request(`${url}/api/messages.php`, { method: 'POST', agent: false, headers: { authorization, 'content-type': 'application/json' } }, response => {
    response.resume()
    if (response.statusCode !== 200) failures.set(String(response.statusCode), (failures.get(String(response.statusCode)) ?? 0) + 1)
  })
  call.on('error', error => failures.set((error as NodeJS.ErrnoException).code ?? error.message, (failures.get((error as NodeJS.ErrnoException).code ?? error.message) ?? 0) + 1))
  call.end(JSON.stringify({ to: `1444${String(index).padStart(7, '0')}`, body: 'Hello' }))
}

export async function benchMemory (): Promise<string> {
  const emulator = await startChild<{ url: string }>('emulator')
  const gateway = await startChild<{ url: string, authorization: string }>('gateway', {
    GRAPH_API_URL: emulator.ready.url, THROUGHPUT_MPS: '1', QUEUE_LIMIT: String(2 * WAITING), DISPATCH_DEADLINE_MS: String(24 * 3600 * 1000), RATE_LIMIT_MAX: '100000000', PAIR_RATE_BURST: '100000'
  })
  try {
    const { url, authorization } = gateway.ready
    for (let index = 0; index < 20; index++) fire(url, authorization, index)
    await sleep(2000)
    const idle = await gateway.call<{ now: number }>('rss')
    await gateway.call('resetPeak')
    const started = Date.now()
    // in batches the gateway can take in: a flood of 10,000 connections at once would wait past
    // the server's headers timeout before their turn came
    for (let fired = 0; fired < WAITING; fired += BATCH) {
      for (let index = fired; index < Math.min(WAITING, fired + BATCH); index++) fire(url, authorization, 1000 + index)
      while (await gateway.call<number>('pending') < fired + BATCH / 2 - (Date.now() - started) / 1000) await sleep(200)
    }
    while (await gateway.call<number>('pending') < WAITING - (Date.now() - started) / 1000 - 5) await sleep(500)
    if (failures.size > 0) throw new Error(`memory bench: requests failed: ${JSON.stringify(Object.fromEntries(failures))}`)
    const intakeSeconds = (Date.now() - started) / 1000
    await sleep(2000)
    const { now, peak } = await gateway.call<{ now: number, peak: number }>('rss')
    const rows = [
      ['idle (after 20 sends)', mib(idle.now), '-'],
      [`${WAITING} waiting in the pacer`, mib(now), `${((now - idle.now) / WAITING / 1024).toFixed(1)} KiB`],
      ['peak while taking them in', mib(peak), `${((peak - idle.now) / WAITING / 1024).toFixed(1)} KiB`]
    ]
    return `Memory: ${WAITING} requests waiting in the pacer (THROUGHPUT_MPS=1, QUEUE_LIMIT ${2 * WAITING}, deadline 24 h), one connection each; taken in in ${intakeSeconds.toFixed(0)} s\n\n` +
      table(['gateway process', 'RSS MiB', 'per waiting request'], rows)
  } finally {
    await gateway.stop()
    await emulator.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchMemory())
}
