import { audit, type Who } from '../access/audit.js'
import type { Config } from '../config.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { checkTarget, ForbiddenTargetError } from '../events/ssrf.js'
import { RELAY_SIGNINGS, type RelaySigning } from '../../db/schema.js'
import type { RelayStore, RelayTarget } from '../store/relays.js'
import { isRelayField, RELAY_FIELDS } from './fields.js'
import { newRelaySecret } from './sign.js'

/** A target refused, naming the input at fault (CONTRACT.md 18: 422 with `field`, or the CLI's exit 1). */
export class RelayInputError extends Error {
  constructor (readonly field: 'url' | 'fields' | 'phone_number_ids' | 'signing', message: string) { super(message) }
}

export interface RelayInput {
  workspaceId: string
  url: string
  fields?: string[]
  phoneNumberIds?: string[]
  signing?: string
}

export interface RelayDeps { relays: RelayStore, cipher: TokenCipher, config: Config }

/**
 * Adds a target after the SSRF checks (section 10's, at creation and at each delivery). An `own`
 * secret is returned this once and kept encrypted (it must sign). No connection is needed.
 */
export async function addRelay (deps: RelayDeps, input: RelayInput, who?: Who): Promise<{ relay: RelayTarget, secret?: string }> {
  const signing = (input.signing ?? 'app') as RelaySigning
  if (!RELAY_SIGNINGS.includes(signing)) throw new RelayInputError('signing', `signing: one of ${RELAY_SIGNINGS.join(', ')}`)
  const fields = input.fields && input.fields.length > 0 ? [...new Set(input.fields)] : null
  const unknown = fields?.find(field => !isRelayField(field))
  if (unknown !== undefined) throw new RelayInputError('fields', `fields: unknown field ${JSON.stringify(unknown)} (one of ${RELAY_FIELDS.join(', ')})`)
  const numbers = input.phoneNumberIds && input.phoneNumberIds.length > 0 ? [...new Set(input.phoneNumberIds)] : null
  if (numbers?.some(number => !/^\d{1,64}$/.test(number))) throw new RelayInputError('phone_number_ids', 'phone_number_ids: phone number ids are digits')
  let url: URL
  try {
    url = await checkTarget(input.url, deps.config.WEBHOOKS_ALLOW_PRIVATE)
  } catch (error) {
    throw error instanceof ForbiddenTargetError ? new RelayInputError('url', error.message) : error
  }
  const secret = signing === 'own' ? newRelaySecret() : undefined
  const relay = await deps.relays.addTarget({ workspaceId: input.workspaceId, url: url.toString(), fields, phoneNumberIds: numbers, signing, secret: secret ? deps.cipher.encrypt(secret) : null },
    audit.of(who, 'relay.added', added => ({ workspaceId: added.workspaceId, target: { kind: 'relay', id: added.id } })))
  return { relay, secret }
}

/** Removes the target; its first removal is audited in the same transaction. False when unknown (or another workspace's). */
export async function removeRelay (relays: RelayStore, who: Who, id: string, workspaceId?: string): Promise<boolean> {
  return await relays.removeTarget(id, workspaceId,
    audit.of(who, 'relay.removed', removed => ({ workspaceId: removed.workspaceId, target: { kind: 'relay', id: removed.id } })))
}
