import { MAGIC_RECIPIENTS } from './magic.js'
import type { FaultScope, Faults } from './types.js'

/** A scope's faults, with the countdown of its transient error. */
export interface ActiveFaults extends Faults { remaining: number }

export interface FaultTarget { phoneNumberId?: string, recipient?: string }

export function digitsOf (value: string): string {
  return value.replace(/\D/g, '')
}

function activate (faults: Faults): ActiveFaults {
  return { ...faults, remaining: faults.transient?.times ?? 1 }
}

function hasOutcome (faults: ActiveFaults): boolean {
  return Boolean(faults.hang || faults.reset || faults.permanent || faults.errorRate ||
    (faults.transient && faults.remaining > 0))
}

/**
 * Faults per scope. latencyMs and retryAfter come from the most specific scope that sets them;
 * the outcome (hang, reset, permanent, transient, errorRate) from the most specific scope that has one active.
 */
export class FaultStore {
  #global?: ActiveFaults
  #numbers = new Map<string, ActiveFaults>()
  #recipients = new Map<string, ActiveFaults>()
  #magic = magicFaults()

  set (scope: FaultScope, faults: Faults): void {
    if (scope === 'global') this.#global = activate(faults)
    else if ('recipient' in scope) this.#recipients.set(digitsOf(scope.recipient), activate(faults))
    else this.#numbers.set(scope.phoneNumberId, activate(faults))
  }

  clear (): void {
    this.#global = undefined
    this.#numbers = new Map()
    this.#recipients = new Map()
    this.#magic = magicFaults()
  }

  /** Most specific first. */
  scopesFor (target: FaultTarget): ActiveFaults[] {
    const recipient = target.recipient === undefined ? undefined : digitsOf(target.recipient)
    const scopes = [
      recipient === undefined ? undefined : this.#recipients.get(recipient) ?? this.#magic.get(recipient),
      target.phoneNumberId === undefined ? undefined : this.#numbers.get(target.phoneNumberId),
      this.#global
    ]
    return scopes.filter((scope): scope is ActiveFaults => scope !== undefined)
  }

  invalidMessageIdFor (target: FaultTarget): Faults['invalidMessageId'] {
    return this.scopesFor(target).find(scope => scope.invalidMessageId !== undefined)?.invalidMessageId
  }

  latencyFor (target: FaultTarget): Faults['latencyMs'] {
    return this.scopesFor(target).find(scope => scope.latencyMs !== undefined)?.latencyMs
  }

  outcomeFor (target: FaultTarget): { outcome?: ActiveFaults, retryAfter?: number } {
    const scopes = this.scopesFor(target)
    return {
      outcome: scopes.find(hasOutcome),
      retryAfter: scopes.find(scope => scope.retryAfter !== undefined)?.retryAfter
    }
  }
}

function magicFaults (): Map<string, ActiveFaults> {
  const entries = Object.entries(MAGIC_RECIPIENTS).flatMap(function withFaults ([number, magic]) {
    return magic.faults ? [[number, activate(magic.faults)] as const] : []
  })
  return new Map(entries)
}
