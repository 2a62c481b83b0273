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
  return `${process.platform} ${process.arch}, node ${process.version}, ${(globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? '?'} cores`
}
