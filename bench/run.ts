import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { benchEvents } from './events.js'
import { benchFootprint } from './footprint.js'
import { benchLookup } from './lookup.js'
import { benchMedia } from './media.js'
import { benchMemory } from './memory.js'
import { benchPacing } from './pacing.js'
import { benchPooler } from './pooler.js'
import { benchQueue } from './queue.js'
import { benchSend } from './send.js'
import { benchTwoProcess } from './two-process.js'
import { benchWebhooks } from './webhooks.js'
import { machineDetails } from './lib.js'

// `npm run bench`: every benchmark in turn, printed as tables; `npm run bench -- --write` also
// replaces the measured part of bench/RESULTS.md. Each bench/<name>.ts also runs alone with tsx.
const benches: [string, () => Promise<string>][] = [
  ['Sends: the gateway beside bare forwarders', benchSend],
  ['Pacing accuracy', benchPacing],
  ['Pacing across two processes (PostgreSQL + Redis)', benchTwoProcess],
  ['Footprint of the embedded default', benchFootprint],
  ['Memory with a deep queue', benchMemory],
  ['Queued sends (Prefer: respond-async)', benchQueue],
  ['Webhook ingestion', benchWebhooks],
  ['Reading messages back, and the Idempotency-Key on the send path (PostgreSQL)', benchLookup],
  ['Outgoing events beside the intake', benchEvents],
  ['Sends through PgBouncer in transaction mode beside direct (PostgreSQL)', benchPooler],
  ['Media: a 100 MB upload beside a bare proxy, and the inbound mirror', benchMedia]
]

const sections: string[] = []
const header = `Measured ${new Date().toISOString().slice(0, 10)} on ${machineDetails()}; load average before the run ${loadavg().map(load => load.toFixed(2)).join(' ')}`
console.log(header)
for (const [title, bench] of benches) {
  const started = Date.now()
  const output = await bench()
  const section = `### ${title}\n\n${output}\n\n(${((Date.now() - started) / 1000).toFixed(0)} s)`
  console.log(`\n${section}`)
  sections.push(section)
}

if (process.argv.includes('--write')) {
  const path = new URL('./RESULTS.md', import.meta.url)
  const MARKER = '<!-- measured: everything below is written by `npm run bench -- --write` -->'
  const kept = existsSync(path) ? readFileSync(path, 'utf8').split(MARKER)[0] : '# Benchmark results\n\n'
  writeFileSync(path, `${kept}${MARKER}\n\n${header}\n\n${sections.join('\n\n')}\n`)
  console.log(`\nwritten to ${path.pathname}`)
}
