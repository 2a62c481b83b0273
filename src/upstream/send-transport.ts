import { Pool } from 'undici'
import { UpstreamError } from './errors.js'

export interface TransportOptions {
  timeoutMs: number
  /** keep-alive connections per upstream origin */
  connections: number
}

export interface RawAnswer { statusCode: number, body: string, retryAfter: string | undefined }

/**
 * The hot path's HTTP: `POST /{phone-number-id}/messages` on an undici Pool per origin (keep-alive,
 * HTTP/1.1, bounded connections). Measured in bench/RESULTS.md: got alone capped a gateway at ~39% of
 * an undici forwarder. One timer bounds the whole call, queueing included, as got's `timeout.request`
 * did; whether the request had been handed to the socket when something failed decides between
 * "nothing was sent" and "the outcome is unknown" (errors.ts).
 */
export function createSendTransport (options: TransportOptions) {
  const pools = new Map<string, Pool>()
  const poolFor = (origin: string) => pools.get(origin) ?? pools.set(origin, new Pool(origin, {
    connections: options.connections,
    pipelining: 1,
    connectTimeout: Math.min(options.timeoutMs, 10_000),
    // our own timer bounds the call; undici's coarse timers fired early (measured: 650 of 800 ms)
    headersTimeout: 0,
    bodyTimeout: 0
  })).get(origin)!

  return {
    async post (url: URL, headers: Record<string, string>, body: string): Promise<RawAnswer> {
      return await new Promise<RawAnswer>((resolve, reject) => {
        const call = new SendCall(resolve, reject, options.timeoutMs)
        poolFor(url.origin).dispatch({ method: 'POST', path: url.pathname + url.search, headers, body }, call)
      })
    },
    /** Ends every connection: called after the dispatcher's drain, so what is still running was abandoned. */
    async close (): Promise<void> {
      await Promise.all([...pools.values()].map(async pool => await pool.destroy()))
      pools.clear()
    }
  }
}

export type SendTransport = ReturnType<typeof createSendTransport>

/** One call as an undici dispatch handler (the callback API: no stream per response). */
class SendCall {
  private sent = false
  private settled = false
  private abort?: (error: Error) => void
  private statusCode = 0
  private retryAfter: string | undefined
  private readonly chunks: Buffer[] = []
  private readonly timer: NodeJS.Timeout

  constructor (
    private readonly resolve: (answer: RawAnswer) => void,
    private readonly reject: (error: UpstreamError) => void,
    timeoutMs: number
  ) {
    this.timer = setTimeout(() => this.timedOut(), timeoutMs)
  }

  onConnect (abort: (error: Error) => void): void {
    // the call may have timed out while it waited for a connection: it must not go now
    if (this.settled) abort(new Error('upstream call timed out'))
    else this.abort = abort
  }

  /** The request is in the socket's hands: from here a failure leaves the outcome unknown. */
  onRequestSent (): void { this.sent = true }

  onHeaders (statusCode: number, rawHeaders: Buffer[]): boolean {
    this.sent = true
    this.statusCode = statusCode
    for (let i = 0; i < rawHeaders.length; i += 2) {
      if (rawHeaders[i].length === 11 && rawHeaders[i].toString('latin1').toLowerCase() === 'retry-after') this.retryAfter = rawHeaders[i + 1].toString('latin1')
    }
    return true
  }

  onData (chunk: Buffer): boolean {
    this.chunks.push(chunk)
    return true
  }

  onComplete (): void {
    if (!this.settle()) return
    this.resolve({ statusCode: this.statusCode, body: Buffer.concat(this.chunks).toString('utf8'), retryAfter: this.retryAfter })
  }

  onError (error: Error & { code?: string }): void {
    if (!this.settle()) return
    if (!this.sent) this.reject(new UpstreamError('unreachable', `Could not reach the upstream (${error.code ?? error.message})`))
    else this.reject(new UpstreamError('lost', `The connection to the upstream broke after the request was sent (${error.code ?? error.message}); the outcome is unknown`))
  }

  private timedOut (): void {
    if (!this.settle()) return
    this.abort?.(new Error('upstream call timed out'))
    this.reject(this.sent
      ? new UpstreamError('timeout', 'The upstream did not answer in time; the outcome is unknown')
      : new UpstreamError('unreachable', 'Could not reach the upstream (connect timeout)'))
  }

  private settle (): boolean {
    if (this.settled) return false
    this.settled = true
    clearTimeout(this.timer)
    return true
  }
}
