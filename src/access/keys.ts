import type { Stores } from '../stores.js'
import type { ApiKey } from '../store/api-keys.js'
import { audit, type Who } from './audit.js'
import { isScope, SCOPES, type Scope } from './scopes.js'

/** A grant that cannot be made: a scope that does not exist, a number the workspace has not connected. */
export class KeyGrantError extends Error {
  constructor (readonly field: 'scopes' | 'phone_number_ids', message: string) {
    super(message)
  }
}

export interface KeyRequest {
  workspaceId: string
  name: string
  /** omitted: every scope */
  scopes?: readonly string[]
  /** omitted or empty: any number of the workspace */
  phoneNumberIds?: readonly string[]
}

/** The scopes asked for, or a KeyGrantError naming the first that does not exist. */
export function grantedScopes (asked: readonly string[] | undefined): Scope[] {
  if (asked === undefined) return [...SCOPES]
  const unknown = asked.find(scope => !isScope(scope))
  if (unknown !== undefined) throw new KeyGrantError('scopes', `unknown scope ${JSON.stringify(unknown)} (one of ${SCOPES.join(', ')})`)
  if (asked.length === 0) throw new KeyGrantError('scopes', `a key needs at least one scope (one of ${SCOPES.join(', ')})`)
  return SCOPES.filter(scope => asked.includes(scope))
}

/**
 * A new key with what it may do, its creation in the audit log in the same transaction. Each number
 * must be one the workspace has connected now: a key cannot be limited to a number it could not use.
 */
export async function createKey (stores: Pick<Stores, 'keys' | 'connections'>, who: Who, request: KeyRequest): Promise<{ key: ApiKey, secret: string }> {
  const scopes = grantedScopes(request.scopes)
  const numbers = [...new Set(request.phoneNumberIds ?? [])]
  if (numbers.length > 0) {
    const connected = (await stores.connections.active(request.workspaceId))?.numbers.map(number => number.phoneNumberId) ?? []
    const foreign = numbers.find(id => !connected.includes(id))
    if (foreign !== undefined) {
      throw new KeyGrantError('phone_number_ids', `phone number id ${JSON.stringify(foreign)} is not connected in workspace ${request.workspaceId}${connected.length > 0 ? ` (connected: ${connected.join(', ')})` : ' (it has no active connection)'}`)
    }
  }
  return await stores.keys.create(request.workspaceId, request.name, { scopes, phoneNumberIds: numbers.length > 0 ? numbers : null },
    audit.of(who, 'key.created', key => ({ workspaceId: key.workspaceId, target: { kind: 'key', id: key.id } })))
}

/** Revokes the key; its first revocation is audited in the same transaction. False when there is no such key. */
export async function revokeKey (stores: Pick<Stores, 'keys'>, who: Who, id: string): Promise<boolean> {
  return await stores.keys.revoke(id, audit.of(who, 'key.revoked', key => ({ workspaceId: key.workspaceId, target: { kind: 'key', id: key.id } })))
}
