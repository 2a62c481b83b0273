import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Redis } from 'ioredis'
import PQueue from 'p-queue'
import { pairRefillMs, type PairRate } from './pair-buckets.js'
import { windowFor } from './throughput.js'
import { PacerRefusal, type AcquireOptions, type Pacer, type Permit, type SendTicket } from './types.js'

export interface RedisPacerOptions {
  redis: Redis
  /** messages that may wait per sending number in this process (QUEUE_LIMIT) */
  queueLimit: number
  pairRate: PairRate
  /** how long an unanswered send may still reach the upstream (UPSTREAM_TIMEOUT_MS) */
  upstreamTimeoutMs: number
  /** key prefix, so several deployments can share one Redis */
  prefix?: string
}

// One atomic step on Redis's clock, so every process counts alike, mirroring the local pacer:
// the pair's token bucket, the number's strict slices (grant times, as number-slots.ts spaces
// them), and its arrival window (a send counts from its grant until a second after its answer,
// as arrival-window.ts does: the upstream counts it somewhere in between). Grants all three or none. Answers 'g:<grant time>', or 'p:<ms>' (pair) / 'n:<ms>' (number).
// The lanes across processes (CONTRACT.md 9, 15): a live or queued send at the head of its
// process's line registers as waiting on the number (KEYS[4] live, KEYS[5] queued; each entry
// lapses after ARGV[10] ms unless renewed by its next poll, so a process that dies leaves none),
// and while any waits a queued send (behind live ones) or a campaign message (behind both) is told
// to poll again shortly (ARGV[11] ms): the next slot goes to the lane ahead, whichever process holds it.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local cap, interval, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local burst, refill, pending = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local lane, waiter, lapse = ARGV[8], ARGV[9], tonumber(ARGV[10])
local own = nil
if lane == 'l' then own = KEYS[4] elseif lane == 'q' then own = KEYS[5] end
local b = redis.call('HMGET', KEYS[3], 'tokens', 'at')
local tokens = math.min(burst, (tonumber(b[1]) or burst) + math.max(0, now - (tonumber(b[2]) or now)) / refill)
if tokens < 1 then
  if own then redis.call('ZREM', own, waiter) end
  return 'p:' .. tostring((1 - tokens) * refill)
end
if own then
  redis.call('ZADD', own, now + lapse, waiter)
  redis.call('PEXPIRE', own, math.ceil(lapse) + 1000)
end
if lane ~= 'l' then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  local ahead = redis.call('ZCARD', KEYS[4])
  if lane == 'c' then
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
    ahead = ahead + redis.call('ZCARD', KEYS[5])
  end
  if ahead > 0 then return 'n:' .. ARGV[11] end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - interval)
if redis.call('ZCARD', KEYS[1]) >= cap then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return 'n:' .. tostring(tonumber(oldest[2]) + interval - now)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= limit then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return 'n:' .. tostring(math.min(tonumber(first[2]) - now, 50))
end
redis.call('ZADD', KEYS[1], now, ARGV[7])
redis.call('PEXPIRE', KEYS[1], math.ceil(interval) + 1000)
redis.call('ZADD', KEYS[2], now + pending, ARGV[7])
redis.call('PEXPIRE', KEYS[2], math.ceil(pending) + 2000)
redis.call('HSET', KEYS[3], 'tokens', tokens - 1, 'at', now)
redis.call('PEXPIRE', KEYS[3], math.ceil(burst * refill) + 1000)
if own then redis.call('ZREM', own, waiter) end
return 'g:' .. tostring(now)
`

// A waiter ahead of the lanes behind it: they look again this soon (ms).
const YIELD_MS = 10

// The send was answered: it counts one more second, no longer until its timeout.
const ANSWERED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
redis.call('ZADD', KEYS[1], 'XX', now + 1000, ARGV[1])
return 1
`

// Each grant is a round trip to Redis through this process's event loop. One poller at a time
// could grant only one message per round trip, which a busy process stretches past a slice's share
// (two processes reached 87–93% of 80/s); a slice's worth of pollers take a freed slice in one.
const POLLERS_PER_NUMBER = 8

interface Wait { reason: 'number' | 'pair', ms: number }
/** live, queued, campaign (types.ts AcquireOptions.lane) */
type Lane = 'l' | 'q' | 'c'

/**
 * The pacer for several processes (REDIS_URL): the local pacer's arithmetic, kept in Redis. Each
 * process asks for a number's slots through a few pollers at a time (a p-queue per number: first
 * come, retries first), so Redis sees at most POLLERS_PER_NUMBER requests per number per process.
 */
export function createRedisPacer (options: RedisPacerOptions): Pacer {
  const { redis, pairRate } = options
  const prefix = options.prefix ?? 'outbound:pacer:'
  const refillMs = pairRefillMs(pairRate)
  const pendingMs = options.upstreamTimeoutMs + 1000
  const queues = new Map<string, PQueue>()
  const waiting = new Map<string, number>()
  let closed = false

  function queueOf (numberId: string): PQueue {
    let queue = queues.get(numberId)
    if (!queue) queues.set(numberId, queue = new PQueue({ concurrency: POLLERS_PER_NUMBER }))
    return queue
  }

  function waitersOf (numberId: string): [string, string] {
    return [`${prefix}w:l:${numberId}`, `${prefix}w:q:${numberId}`]
  }

  async function tryTake (ticket: SendTicket, lane: Lane, waiter: string): Promise<Wait | Permit> {
    const { intervalCap, interval } = windowFor(ticket.mps)
    const arrivals = `${prefix}a:${ticket.numberId}`
    const keys = [`${prefix}s:${ticket.numberId}`, arrivals, `${prefix}p:${ticket.numberId}:${ticket.recipient}`, ...waitersOf(ticket.numberId)]
    const member = `${Date.now()}:${randomBytes(6).toString('hex')}`
    // a registration outlives the longest wait between two polls (a slice) by half a second
    const lapseMs = Math.ceil(interval) + 500
    const answer = String(await redis.eval(TAKE, 5, ...keys, intervalCap, interval, ticket.mps, pairRate.burst, refillMs, pendingMs, member, lane, waiter, lapseMs, YIELD_MS))
    if (answer.startsWith('g:')) {
      let done = false
      return {
        done () {
          if (done) return
          done = true
          // best effort: an entry not updated still expires at its timeout
          redis.eval(ANSWERED, 1, arrivals, member).catch(() => {})
        }
      }
    }
    return { reason: answer.startsWith('p:') ? 'pair' : 'number', ms: Math.max(1, Math.ceil(Number(answer.slice(2)))) }
  }

  function refuseIfLate (wait: Wait, deadline: number): void {
    const late = Date.now() + wait.ms - deadline
    if (late > 0) throw new PacerRefusal('deadline', `the message could not be sent within its deadline: the pacing wait is ${wait.ms} ms`, late)
  }

  /** At the head of the number's line: polls until granted; a pair wait gives the line up and is waited outside it. */
  async function atHead (ticket: SendTicket, acquire: AcquireOptions): Promise<Wait | Permit> {
    const lane: Lane = acquire.lane === 'queued' ? 'q' : acquire.lane === 'campaign' ? 'c' : 'l'
    const waiter = randomBytes(8).toString('hex')
    try {
      for (;;) {
        const outcome = await tryTake(ticket, lane, waiter)
        if ('done' in outcome || outcome.reason === 'pair') return outcome
        refuseIfLate(outcome, acquire.deadline)
        await sleep(outcome.ms, undefined, { signal: acquire.signal })
      }
    } catch (error) {
      // no longer waiting (aborted, refused, Redis away): the lanes behind need not wait for the registration to lapse
      if (lane !== 'c') redis.zrem(waitersOf(ticket.numberId)[lane === 'l' ? 0 : 1], waiter).catch(() => {})
      throw error
    }
  }

  return {
    async acquire (ticket, acquire) {
      if (closed) throw new PacerRefusal('closed', 'the gateway is shutting down')
      // campaign messages count against no QUEUE_LIMIT (CONTRACT.md 15): they wait behind live
      // traffic, so a big campaign's waiters must not turn live sends into 503 queue_full
      const counted = acquire.lane !== 'campaign'
      if (counted) {
        const count = waiting.get(ticket.numberId) ?? 0
        if (count >= options.queueLimit) throw new PacerRefusal('queue_full', `${count} messages are already waiting to be sent from this number`, count / ticket.mps * 1000)
        waiting.set(ticket.numberId, count + 1)
      }
      try {
        for (;;) {
          // Live sends ahead of queued ones among this process's waiters; across processes the TAKE step puts lanes in order.
          const priority = (acquire.retry ? 1 : 0) + (acquire.lane === 'queued' ? -10 : acquire.lane === 'campaign' ? -20 : 0)
          const outcome = await queueOf(ticket.numberId).add(async () => await atHead(ticket, acquire), { signal: acquire.signal, priority })
          if ('done' in outcome) return outcome
          refuseIfLate(outcome, acquire.deadline)
          await sleep(outcome.ms, undefined, { signal: acquire.signal })
        }
      } catch (error) {
        throw acquire.signal?.aborted ? acquire.signal.reason : error
      } finally {
        if (counted) {
          const left = (waiting.get(ticket.numberId) ?? 1) - 1
          if (left <= 0) waiting.delete(ticket.numberId)
          else waiting.set(ticket.numberId, left)
        }
      }
    },

    close () {
      closed = true
      for (const queue of queues.values()) queue.clear()
    }
  }
}
