/** The upstream's per-number throughput by `throughput.level` (upstream-facts.md 3.1). */
const LEVEL_MPS: Record<string, number> = { STANDARD: 80, HIGH: 1000 }
const DEFAULT_MPS = LEVEL_MPS.STANDARD

// Room for the network: a send reaches the upstream a little later than its slot, by a varying
// amount; 2% of a second is 20 ms of such jitter that still cannot push a window over the limit.
export const SAFETY_MARGIN = 0.02
// About a tenth of the throughput per slice of the second. Slices of 1/100 s (one message every
// 12.75 ms at 80/s) lose a timer tick of up to ~1 ms each and reached only 78–92% of the limit
// here; slices of ~100 ms amortise that tick to ~1% (see bench/RESULTS.md).
const SLICES_PER_SECOND = 10

/** Messages per second for a number: THROUGHPUT_MPS when set, else its level, else STANDARD. */
export function throughputOf (level: string | null | undefined, override?: number): number {
  return override ?? (level ? LEVEL_MPS[level] : undefined) ?? DEFAULT_MPS
}

/**
 * The sliding window that keeps `mps` under the limit: at most `intervalCap` starts in any
 * `interval` ms, with `slices` = floor(mps / intervalCap) windows per (1 + margin) seconds. Any
 * 1000 ms then holds at most intervalCap × slices ≤ mps starts, and still does when sends reach the
 * upstream up to 1000 × SAFETY_MARGIN ms apart from their slots. When intervalCap does not divide
 * mps the remainder is given up (83/s paces at 80/s); the upstream's levels, 80 and 1000, divide.
 */
export function windowFor (mps: number): { intervalCap: number, interval: number } {
  const intervalCap = Math.max(1, Math.floor(mps / SLICES_PER_SECOND))
  const slices = Math.floor(mps / intervalCap)
  return { intervalCap, interval: 1000 * (1 + SAFETY_MARGIN) / slices }
}
