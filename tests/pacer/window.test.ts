import { describe, expect, it } from 'vitest'
import { PairBuckets } from '../../src/pacer/pair-buckets.js'
import { SAFETY_MARGIN, throughputOf, windowFor } from '../../src/pacer/throughput.js'

describe('pacer: the window that splits a number\'s second', () => {
  it('takes the number\'s level, STANDARD when unknown, and THROUGHPUT_MPS over all', () => {
    expect(throughputOf('STANDARD')).toBe(80)
    expect(throughputOf('HIGH')).toBe(1000)
    expect(throughputOf(null)).toBe(80)
    expect(throughputOf('SOMETHING_NEW')).toBe(80)
    expect(throughputOf('HIGH', 5)).toBe(5)
  })

  it('never admits more than the limit in any second, even with 20 ms of network jitter', () => {
    for (let mps = 1; mps <= 3000; mps++) {
      const { intervalCap, interval } = windowFor(mps)
      // the most starts any 1000 ms + jitter can hold under "at most intervalCap in any interval"
      const jitterMs = 1000 * SAFETY_MARGIN
      expect(intervalCap * Math.ceil((1000 + jitterMs) / interval - 1e-9), `mps ${mps}`).toBeLessThanOrEqual(mps)
    }
  })

  it('admits at least 97% of the upstream\'s levels on paper, in slices of about 100 ms', () => {
    for (const mps of [80, 1000]) {
      const { intervalCap, interval } = windowFor(mps)
      expect(intervalCap / interval * 1000).toBeGreaterThanOrEqual(0.97 * mps)
      expect(interval).toBeGreaterThan(90)
      expect(interval).toBeLessThan(110)
    }
  })
})

describe('pacer: pair buckets', () => {
  const rate = { burst: 3, intervalMs: 1000 }
  // the refill the buckets use: the upstream's interval plus its margin
  const refill = 1000 * 1.02 + 20

  it('gives a burst at once, then one token per (slightly slower than the upstream\'s) interval', () => {
    const buckets = new PairBuckets(rate)
    expect([0, 0, 0].map(() => buckets.reserve('n:r', 0))).toEqual([0, 0, 0])
    for (let index = 0; index < 3; index++) {
      expect(buckets.commit('n:r', 0)).toBe(true)
      buckets.answered('n:r', 0)
    }
    expect(buckets.reserve('n:r', 0)).toBe(Math.ceil(refill))
    expect(buckets.reserve('n:r', 0)).toBe(Math.ceil(2 * refill))
    expect(buckets.commit('n:r', refill - 1)).toBe(false)
    expect(buckets.commit('n:r', refill)).toBe(true)
  })

  it('counts a token spent when the message goes, not when it started waiting', () => {
    const buckets = new PairBuckets(rate)
    for (let index = 0; index < 3; index++) buckets.reserve('n:r', 0)
    // the three wait for their number's slot and go at 500 ms: a full bucket refills nothing meanwhile
    for (let index = 0; index < 3; index++) expect(buckets.commit('n:r', 500)).toBe(true)
    for (let index = 0; index < 3; index++) buckets.answered('n:r', 500)
    buckets.reserve('n:r', 500)
    expect(buckets.commit('n:r', 500 + refill - 1)).toBe(false)
  })

  it('refills only from the answer: the upstream may have taken the token any time before it', () => {
    const buckets = new PairBuckets(rate)
    for (let index = 0; index < 3; index++) {
      buckets.reserve('n:r', 0)
      buckets.commit('n:r', 0)
    }
    // answered two seconds later: the upstream may have counted them just before
    for (let index = 0; index < 3; index++) buckets.answered('n:r', 2000)
    buckets.reserve('n:r', 2000)
    expect(buckets.commit('n:r', 2000 + refill - 1)).toBe(false)
    expect(buckets.commit('n:r', 2000 + refill)).toBe(true)
  })

  it('keeps pairs apart and forgets full buckets nobody waits for', () => {
    const buckets = new PairBuckets(rate)
    buckets.reserve('n:a', 0)
    buckets.commit('n:a', 0)
    expect(buckets.reserve('n:b', 0)).toBe(0)
    buckets.release('n:b')
    expect(buckets.size).toBe(2)
    buckets.sweep(refill)
    expect(buckets.size).toBe(1) // n:a is still sending
    buckets.answered('n:a', refill)
    buckets.sweep(refill * 1.5)
    expect(buckets.size).toBe(1)
    buckets.sweep(refill * 2)
    expect(buckets.size).toBe(0)
  })
})
