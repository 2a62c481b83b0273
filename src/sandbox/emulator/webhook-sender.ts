import { createHmac } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DeliveryStatus, WebhookDelivery } from './types.js'

const ATTEMPT_TIMEOUT_MS = 10_000

export interface DeliveryOptions { signature?: string | null, retry?: boolean, onFirstAnswer?: (status: DeliveryStatus) => void }

export function signBody (raw: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`
}

/** Posts signed webhooks with the upstream's retries, records every attempt and tracks what is still pending. */
export class WebhookSender {
  readonly #secret: string
  readonly #retries: number[]
  readonly #deliveries: WebhookDelivery[]
  #pending = 0
  #waiters: Array<() => void> = []
  #controller = new AbortController()

  constructor (secret: string, retries: number[], deliveries: WebhookDelivery[]) {
    this.#secret = secret
    this.#retries = retries
    this.#deliveries = deliveries
  }

  /** Runs background work that idle() waits for and cancel() stops. */
  track (work: (signal: AbortSignal) => Promise<unknown>): void {
    this.#pending += 1
    work(this.#controller.signal).catch(reportUnlessAborted).finally(() => {
      this.#pending -= 1
      if (this.#pending === 0) this.#waiters.splice(0).forEach(wake => wake())
    })
  }

  /** One delivery: resolves with the first answer; the retries, if any, go on in the background. */
  post (url: string, body: unknown, options: DeliveryOptions = {}): Promise<DeliveryStatus> {
    return new Promise(resolve => {
      this.track(signal => this.deliver(url, body, signal, { ...options, onFirstAnswer: resolve }))
    })
  }

  /** One delivery with its retries; resolves with the last answer. */
  async deliver (url: string, body: unknown, signal: AbortSignal, options: DeliveryOptions = {}): Promise<DeliveryStatus> {
    const raw = typeof body === 'string' ? body : JSON.stringify(body)
    const signature = options.signature === undefined ? signBody(raw, this.#secret) : options.signature
    const backoff = (options.retry ?? options.signature === undefined) ? this.#retries : []
    let status: DeliveryStatus = 'error'
    try {
      for (let attempt = 0; ; attempt++) {
        const at = Date.now()
        status = await attemptOnce(url, raw, signature, signal)
        if (signal.aborted) return status
        this.#deliveries.push({ url, body, status, at })
        if (attempt === 0) options.onFirstAnswer?.(status)
        if (isSuccess(status) || attempt >= backoff.length) return status
        await sleep(backoff[attempt], undefined, { signal })
      }
    } finally {
      // cancelled before any answer: the caller still gets one
      options.onFirstAnswer?.(status)
    }
  }

  idle (): Promise<void> {
    if (this.#pending === 0) return Promise.resolve()
    return new Promise(resolve => this.#waiters.push(resolve))
  }

  cancel (): void {
    this.#controller.abort()
    this.#controller = new AbortController()
  }
}

async function attemptOnce (url: string, raw: string, signature: string | null, signal: AbortSignal): Promise<DeliveryStatus> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'facebookexternalua' }
  if (signature !== null) headers['x-hub-signature-256'] = signature
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: raw,
      signal: AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)])
    })
    await response.arrayBuffer()
    return response.status
  } catch {
    return 'error'
  }
}

function isSuccess (status: DeliveryStatus): boolean {
  return typeof status === 'number' && status >= 200 && status < 300
}

function reportUnlessAborted (error: unknown): void {
  if ((error as Error | undefined)?.name !== 'AbortError') console.error('emulator webhook work failed', error)
}
