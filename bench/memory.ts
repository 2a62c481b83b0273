import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { startChild } from './child.js'
import { mib, table } from './lib.js'

// Memory with a deep queue: WAITING requests held in the pacer (one message a second, so they stay),
// each on a connection of its own as real clients would be. Peak RSS of the gateway's process.
const WAITING = Number(process.env.BENCH_MEMORY_WAITING ?? 10_000)

function fire (url: string, authorization: string, index: number): void {
  const call = request(`${url}/api/messages.php`, { method: 'POST', agent: false, headers: { authorization, 'content-type': 'application/json' } }, response => response.resume())
  call.on('error', () => {})
  call.end(JSON.stringify({ to: `1444${String(index).padStart(7, '0')}`, body: 'Hello' }))
}

export async function benchMemory (): Promise<string> {
  const emulator = await startChild<{ url: string }>('emulator')
  const gateway = await startChild<{ url: string, authorization: string }>('gateway', {
    GRAPH_API_URL: emulator.ready.url, THROUGHPUT_MPS: '1', QUEUE_LIMIT: String(2 * WAITING), DISPATCH_DEADLINE_MS: '3600000', RATE_LIMIT_MAX: '100000000', PAIR_RATE_BURST: '100000'
  })
  try {
    const { url, authorization } = gateway.ready
    for (let index = 0; index < 20; index++) fire(url, authorization, index)
    await sleep(2000)
    const idle = await gateway.call<{ now: number }>('rss')
    await gateway.call('resetPeak')
    const started = Date.now()
    for (let index = 0; index < WAITING; index++) {
      fire(url, authorization, 1000 + index)
      if (index % 500 === 499) await sleep(50)
    }
    // every request taken in and waiting in the pacer (a few are sent meanwhile, one a second)
    while (await gateway.call<number>('pending') < WAITING - (Date.now() - started) / 1000 - 30) await sleep(1000)
    const intakeSeconds = (Date.now() - started) / 1000
    await sleep(2000)
    const { now, peak } = await gateway.call<{ now: number, peak: number }>('rss')
    const rows = [
      ['idle (after 20 sends)', mib(idle.now), '-'],
      [`${WAITING} waiting in the pacer`, mib(now), `${((now - idle.now) / WAITING / 1024).toFixed(1)} KiB`],
      ['peak while taking them in', mib(peak), `${((peak - idle.now) / WAITING / 1024).toFixed(1)} KiB`]
    ]
    return `Memory: ${WAITING} requests waiting in the pacer (THROUGHPUT_MPS=1, QUEUE_LIMIT ${2 * WAITING}, deadline 1 h), one connection each; taken in in ${intakeSeconds.toFixed(0)} s\n\n` +
      table(['gateway process', 'RSS MiB', 'per waiting request'], rows)
  } finally {
    await gateway.stop()
    await emulator.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchMemory())
}
