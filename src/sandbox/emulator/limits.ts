import { performance } from 'node:perf_hooks'
import { GraphError } from './graph-error.js'
import type { EmulatedNumber } from './types.js'

const WINDOW_MS = 1000
const LEVEL_MPS: Record<string, number> = { STANDARD: 80, HIGH: 1000 }

export interface LimitOptions { throughputMps?: number, pairRateBurst: number, pairRateIntervalMs: number }

interface Bucket { tokens: number, updatedAt: number }

/** The two upstream send limits: a sliding one-second window per number and a token bucket per (number, recipient). */
export class SendLimits {
  readonly #options: LimitOptions
  #accepted = new Map<string, number[]>()
  #pairs = new Map<string, Bucket>()

  constructor (options: LimitOptions) {
    this.#options = options
  }

  /** Throws the upstream's error when a send would break a limit; otherwise takes its capacity. */
  admit (number: EmulatedNumber, recipient: string): void {
    const now = performance.now()
    const window = this.#window(number.id, now)
    if (window.length >= this.throughputOf(number)) throw new GraphError(130429)
    if (!this.#takePairToken(`${number.id}:${recipient}`, now)) throw new GraphError(131056)
    window.push(now)
  }

  throughputOf (number: EmulatedNumber): number {
    return this.#options.throughputMps ?? LEVEL_MPS[number.throughputLevel ?? 'STANDARD'] ?? LEVEL_MPS.STANDARD
  }

  reset (): void {
    this.#accepted = new Map()
    this.#pairs = new Map()
  }

  #window (phoneNumberId: string, now: number): number[] {
    let window = this.#accepted.get(phoneNumberId)
    if (!window) this.#accepted.set(phoneNumberId, window = [])
    while (window.length > 0 && now - window[0] >= WINDOW_MS) window.shift()
    return window
  }

  #takePairToken (key: string, now: number): boolean {
    const { pairRateBurst: burst, pairRateIntervalMs: interval } = this.#options
    const bucket = this.#pairs.get(key) ?? { tokens: burst, updatedAt: now }
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.updatedAt) / interval)
    bucket.updatedAt = now
    this.#pairs.set(key, bucket)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }
}
