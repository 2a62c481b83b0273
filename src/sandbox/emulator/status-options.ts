import { digitsOf } from './faults.js'
import { MAGIC_RECIPIENTS } from './magic.js'
import type { AsyncError, StatusDelays, StatusName, StatusOptions } from './types.js'

export interface ResolvedStatusOptions {
  statuses: StatusName[]
  delays: Required<StatusDelays>
  duplicate: boolean
  reorder: boolean
  failWith?: AsyncError
}

export interface StatusStep { status: StatusName, timestamp: number, offsetMs: number }

const DEFAULT_STATUSES: StatusName[] = ['sent', 'delivered', 'read']
const DEFAULT_FAILURE: AsyncError = { code: 131026 }

/** Status-webhook behaviour, global and per recipient (a recipient's settings override the global ones key by key). */
export class StatusOptionStore {
  readonly #delays: StatusDelays
  #global: StatusOptions = {}
  #recipients = new Map<string, StatusOptions>()

  constructor (delays: StatusDelays) {
    this.#delays = delays
  }

  set (scope: 'global' | { recipient: string }, options: StatusOptions): void {
    if (scope === 'global') this.#global = options
    else this.#recipients.set(digitsOf(scope.recipient), options)
  }

  clear (): void {
    this.#global = {}
    this.#recipients = new Map()
  }

  resolve (recipient: string): ResolvedStatusOptions {
    const specific = this.#recipients.get(recipient) ?? MAGIC_RECIPIENTS[recipient]?.status ?? {}
    const merged = { ...this.#global, ...specific }
    const delays = { ...this.#delays, ...this.#global.delaysMs, ...specific.delaysMs }
    const statuses = merged.statuses ?? DEFAULT_STATUSES
    return {
      statuses,
      delays: { ...delays, failed: delays.failed ?? delays.delivered },
      duplicate: merged.duplicate ?? false,
      reorder: merged.reorder ?? false,
      failWith: merged.failWith ?? (statuses.includes('failed') ? DEFAULT_FAILURE : undefined)
    }
  }
}

/**
 * The statuses in the order they will be delivered. Timestamps follow the logical order one second apart,
 * so ordering by timestamp works even when delivery order is reversed or deliveries come faster.
 */
export function planStatuses (options: ResolvedStatusOptions, acceptedAt: number): StatusStep[] {
  const names: StatusName[] = options.failWith ? [...options.statuses.filter(s => s === 'sent'), 'failed'] : options.statuses
  const base = Math.floor(acceptedAt / 1000)
  const logical = names.map((status, index) => ({ status, timestamp: base + index }))
  const offsets = logical.map(step => options.delays[step.status]).sort((a, b) => a - b)
  const ordered = options.reorder ? [...logical].reverse() : logical
  return ordered.map((step, index) => ({ ...step, offsetMs: offsets[index] }))
}
