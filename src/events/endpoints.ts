import { audit, type Who } from '../access/audit.js'
import type { Config } from '../config.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import type { WebhookEndpoint, WebhookStore } from '../store/webhooks.js'
import { EVENT_TYPES } from './outbox.js'
import { newSecret } from './sign.js'
import { checkTarget, ForbiddenTargetError } from './ssrf.js'

export { ForbiddenTargetError }

/**
 * Adds an endpoint after the SSRF checks (the URL and every address its host resolves to); the
 * secret is returned this once and kept encrypted (it must sign, so a hash would not do).
 */
export async function addEndpoint (deps: { webhooks: WebhookStore, cipher: TokenCipher, config: Config },
  input: { workspaceId: string, url: string, events?: string[] }, who?: Who): Promise<{ endpoint: WebhookEndpoint, secret: string }> {
  const events = input.events && input.events.length > 0 ? [...new Set(input.events)] : [...EVENT_TYPES]
  const unknown = events.filter(type => !(EVENT_TYPES as readonly string[]).includes(type))
  if (unknown.length > 0) throw new ForbiddenTargetError(`events: unknown event type ${unknown.join(', ')} (one of ${EVENT_TYPES.join(', ')})`)
  const url = await checkTarget(input.url, deps.config.WEBHOOKS_ALLOW_PRIVATE)
  const secret = newSecret()
  const endpoint = await deps.webhooks.addEndpoint({ workspaceId: input.workspaceId, url: url.toString(), events, secret: deps.cipher.encrypt(secret) },
    audit.of(who, 'webhook_endpoint.added', added => ({ workspaceId: added.workspaceId, target: { kind: 'webhook_endpoint', id: added.id } })))
  return { endpoint, secret }
}

/** Removes the endpoint (see WebhookStore.removeEndpoint); its first removal is audited in the same transaction. */
export async function removeEndpoint (webhooks: WebhookStore, who: Who, id: string, workspaceId?: string): Promise<boolean> {
  return await webhooks.removeEndpoint(id, workspaceId,
    audit.of(who, 'webhook_endpoint.removed', removed => ({ workspaceId: removed.workspaceId, target: { kind: 'webhook_endpoint', id: removed.id } })))
}
