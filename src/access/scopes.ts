import { SCOPES, type Scope } from '../../db/schema.js'
import { numberNotAllowed } from '../errors.js'

export { SCOPES, type Scope }

/** What a key may do, as its row (cached with the key: src/store/api-keys.ts) carries it. */
export interface KeyAccess {
  scopes: readonly Scope[]
  /** null: any number of its workspace */
  phoneNumberIds: readonly string[] | null
}

export function isScope (value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

/** The first scope a route needs that the key lacks. */
export function missingScope (key: KeyAccess, required: readonly Scope[]): Scope | undefined {
  return required.find(scope => !key.scopes.includes(scope))
}

export function maySendFrom (key: KeyAccess, phoneNumberId: string): boolean {
  return key.phoneNumberIds === null || key.phoneNumberIds.includes(phoneNumberId)
}

/** 403 unless the key may send from the number: for routes that resolve their sender themselves. */
export function requireNumber (key: KeyAccess, phoneNumberId: string): void {
  if (!maySendFrom(key, phoneNumberId)) throw numberNotAllowed(phoneNumberId, key.phoneNumberIds ?? [])
}
