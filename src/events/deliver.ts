import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { Agent, request } from 'undici'
import { retrySchedule, type Config } from '../config.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { scheduleBackoff } from '../work/backoff.js'
import { findCause } from '../faults/causes.js'
import type { Job } from '../work/jobs.js'
import type { DeliveryStatus } from '../../db/schema.js'
import type { AttemptOutcome, AttemptTarget } from '../store/webhooks.js'
import { signedHeaders, signingKey } from './sign.js'
import { checkUrlShape, isForbiddenAddress } from './ssrf.js'

/** CONTRACT.md 10: 2xx within 10 s. */
export const DELIVERY_TIMEOUT_MS = 10_000

/**
 * Resolves like dns.lookup, then refuses any forbidden address: the check happens at connect time,
 * on the addresses actually dialled, so a name that re-resolves to 127.0.0.1 (DNS rebinding) is caught.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0)
    const bad = addresses.find(entry => isForbiddenAddress(entry.address))
    if (bad) return callback(Object.assign(new Error('refused: the endpoint resolves to an internal address'), { code: 'EFORBIDDEN' }), '', 0)
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
    callback(null, addresses[0].address, addresses[0].family)
  })
}

/** The HTTP client of deliveries: no redirects (undici's request follows none), SSRF-checked connects unless private targets are allowed. */
export function deliveryAgent (allowPrivate: boolean): Agent {
  return new Agent({
    connect: { timeout: DELIVERY_TIMEOUT_MS, ...(allowPrivate ? {} : { lookup: guardedLookup }) },
    headersTimeout: DELIVERY_TIMEOUT_MS,
    bodyTimeout: DELIVERY_TIMEOUT_MS,
    connections: 64
  })
}

/** WEBHOOK_RETRY_SCHEDULE_MS as the runner takes it (customer events and relays alike): 1 + the schedule's length attempts. */
export function retryPolicy (config: Config): { maxAttempts: number, backoffMs(attempt: number): number } {
  const schedule = retrySchedule(config)
  return { maxAttempts: 1 + schedule.length, backoffMs: scheduleBackoff(schedule) }
}

/** A delivery as one attempt sees it: where to, and whether its target is still there. */
export interface PendingDelivery {
  id: string
  status: DeliveryStatus
  url: string
  /** its endpoint or relay target was removed: the delivery ends `failed` */
  targetRemoved: boolean
}

/** The rows of one kind of delivery (customer events, relays): read for an attempt, written after it. */
export interface DeliveryLog<T extends PendingDelivery> {
  forAttempt(id: string): Promise<T | undefined>
  recordAttempt(id: string, outcome: AttemptOutcome): Promise<void>
}

export interface DeliveryDeps<T extends PendingDelivery> {
  deliveries: DeliveryLog<T>
  agent: Agent
  allowPrivate: boolean
  /** attempts a delivery gets in all (1 + the retry schedule) */
  maxAttempts: number
  backoffMs(attempt: number): number
  /** the headers (signature included) and body of one attempt */
  request(delivery: T): { headers: Record<string, string>, body: string | Buffer }
  observe?(outcome: 'delivered' | 'retry' | 'failed'): void
}

/**
 * One attempt of one delivery, under the runner's lease (so by one process): sign, POST, record the
 * answer. A failed attempt throws so the runner retries it on the schedule; the last one leaves the
 * delivery `failed`, replayable. A holder that died mid-attempt leaves the job to be offered again:
 * sending twice is what at-least-once means, and the same delivery id lets the receiver tell.
 */
export function deliveryTask<T extends PendingDelivery> (deps: DeliveryDeps<T>) {
  return async function deliver (job: Job): Promise<void> {
    const delivery = await deps.deliveries.forAttempt(job.payload.toString('utf8'))
    if (!delivery || delivery.status !== 'pending') return
    const settle = async (answer: { responseStatus: number | null, error: string | null }): Promise<void> => {
      const final = answer.error === null || job.attempts >= deps.maxAttempts || delivery.targetRemoved
      const outcome: AttemptOutcome = {
        status: answer.error === null ? 'delivered' : final ? 'failed' : 'pending',
        ...answer,
        nextAttemptAt: final ? null : new Date(Date.now() + deps.backoffMs(job.attempts))
      }
      await deps.deliveries.recordAttempt(delivery.id, outcome)
      deps.observe?.(outcome.status === 'delivered' ? 'delivered' : outcome.status === 'failed' ? 'failed' : 'retry')
      if (answer.error !== null && !final) throw new Error(answer.error)
    }
    if (delivery.targetRemoved) return await settle({ responseStatus: null, error: 'target removed' })
    await settle(await attempt(deps, delivery.url, deps.request(delivery)))
  }
}

/** Customer events (CONTRACT.md 10): Standard Webhooks' headers, keyed with the endpoint's secret. */
export function eventRequest (cipher: TokenCipher) {
  return (delivery: AttemptTarget) => ({
    headers: { 'user-agent': 'Outbound-Webhooks/1', ...signedHeaders(signingKey(cipher.decrypt(delivery.secret)), delivery.webhookId, delivery.body) },
    body: delivery.body
  })
}

async function attempt (deps: { agent: Agent, allowPrivate: boolean }, url: string, outgoing: { headers: Record<string, string>, body: string | Buffer }): Promise<{ responseStatus: number | null, error: string | null }> {
  try {
    const target = checkUrlShape(url, deps.allowPrivate)
    // an IP literal is dialled without a lookup: check it here
    const host = target.hostname.replace(/^\[|\]$/g, '')
    if (!deps.allowPrivate && isIP(host) && isForbiddenAddress(host)) return { responseStatus: null, error: 'refused: the endpoint is an internal address' }
    // the agent's connect, headers and body timeouts bound the attempt (DELIVERY_TIMEOUT_MS each)
    const response = await request(target, {
      method: 'POST',
      dispatcher: deps.agent,
      headers: { 'content-type': 'application/json', ...outgoing.headers },
      body: outgoing.body
    })
    await response.body.dump({ limit: 64 * 1024 }).catch(() => {})
    const ok = response.statusCode >= 200 && response.statusCode < 300
    return { responseStatus: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` }
  } catch (error) {
    // undici's own error, or the socket's it wraps, names what happened (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT)
    const code = findCause(error, link => typeof link.code === 'string' && link.code !== '')?.code as string | undefined
    return { responseStatus: null, error: (code ? `${code}: ` : '') + (error as Error).message.slice(0, 200) }
  }
}
