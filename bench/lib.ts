import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism, totalmem } from 'node:os'
import { performance } from 'node:perf_hooks'

/** Runs `total` calls of `task` with `concurrency` in flight; returns each call's latency in ms and the wall time. */
export async function load (total: number, concurrency: number, task: (index: number) => Promise<void>): Promise<{ latencies: number[], seconds: number }> {
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  async function worker (): Promise<void> {
    while (next < total) {
      const index = next++
      const begin = performance.now()
      await task(index)
      latencies.push(performance.now() - begin)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker))
  return { latencies, seconds: (performance.now() - started) / 1000 }
}

/** The most of `times` (ms) that any sliding window of `windowMs` holds (half-open, as the emulator counts). */
export function busiestWindow (times: number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last] - sorted[first] >= windowMs) first++
    most = Math.max(most, last - first + 1)
  }
  return most
}

export function percentile (values: number[], p: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** A fixed-width text table, for bench output and RESULTS.md alike. */
export function table (headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map(row => row.map(cell => typeof cell === 'number' ? format(cell) : cell))]
  const widths = headers.map((_, column) => Math.max(...cells.map(row => String(row[column]).length)))
  const line = (row: (string | number)[]) => '| ' + row.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ') + ' |'
  return [line(cells[0]), '|' + widths.map(width => '-'.repeat(width + 2)).join('|') + '|', ...cells.slice(1).map(line)].join('\n')
}

function format (value: number): string {
  if (!Number.isFinite(value)) return '-'
  return value >= 100 ? value.toFixed(0) : value.toFixed(1)
}

export function machine (): string {
  return `${process.platform} ${process.arch}, node ${process.version}, ${availableParallelism()} cores`
}

/** Keeps `concurrency` calls of `task` in flight for `durationMs`; each call's latency in ms, and the wall time. */
export async function loadFor (durationMs: number, concurrency: number, task: (index: number) => Promise<void>): Promise<{ latencies: number[], seconds: number }> {
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  const until = started + durationMs
  async function worker (): Promise<void> {
    while (performance.now() < until) {
      const index = next++
      const begin = performance.now()
      await task(index)
      latencies.push(performance.now() - begin)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { latencies, seconds: (performance.now() - started) / 1000 }
}

/** nproc, the CPU model and node, for RESULTS.md. */
export function machineDetails (): string {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.+)/)?.[1] ?? 'unknown CPU'
  return `${availableParallelism()} CPUs (nproc), ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${process.platform} ${process.arch}`
}

export const mib = (bytes: number) => bytes / 1024 / 1024

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function processCpu (pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** CPU seconds used so far by every PostgreSQL process of the machine (its backends do the work of the gateway's statements). */
export function postgresCpu (): number {
  let total = 0
  for (const pid of readdirSync('/proc').filter(name => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) total += processCpu(Number(pid))
    } catch {}
  }
  return total
}
