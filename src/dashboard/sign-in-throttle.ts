import type { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible'

const WINDOW_SECONDS = 15 * 60

export interface SignInLimit {
  /** failures allowed in the window */
  max: number
  key: (address: string, email: string) => string
}

/** Per address and email (10), and per address (50): failures in 15 minutes before sign-in is refused. */
export const SIGN_IN_LIMITS: readonly SignInLimit[] = [
  { max: 10, key: (address, email) => `${address}:${email}` },
  { max: 50, key: address => address }
]

/**
 * Sign-in throttling that counts failed attempts only (CONTRACT.md 12): a person who signs in often
 * is never locked out, while guessing still stops at the limit, even for a right password. Shared
 * through Redis when configured (every process sees the same counts), in memory otherwise.
 */
export class SignInThrottle {
  private readonly limiters: { limit: SignInLimit, limiter: RateLimiterAbstract }[]

  constructor (redis: Redis | null) {
    this.limiters = SIGN_IN_LIMITS.map((limit, index) => {
      const options = { keyPrefix: `outbound:signin-failures:${index}`, points: limit.max, duration: WINDOW_SECONDS }
      return { limit, limiter: redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(options) }
    })
  }

  /** Seconds until an attempt may be made, when a limit is reached; undefined when it may be made now. Counts nothing. */
  async retryAfter (address: string, email: string): Promise<number | undefined> {
    for (const { limit, limiter } of this.limiters) {
      const state = await limiter.get(limit.key(address, email))
      if (state && state.consumedPoints >= limit.max) return Math.max(1, Math.ceil(state.msBeforeNext / 1000))
    }
    return undefined
  }

  async countFailure (address: string, email: string): Promise<void> {
    await Promise.all(this.limiters.map(async ({ limit, limiter }) => await limiter.penalty(limit.key(address, email), 1)))
  }
}
