import type { TokenCipher } from '../crypto/token-cipher.js'
import type { RelayAttempt } from '../store/relays.js'
import { hubSignature } from '../webhooks/signature.js'

/**
 * What a target receives (CONTRACT.md 18): the delivery's bytes, signed as Meta signs them, with the
 * app secret (Chatwoot and n8n check it as they check Meta) or the target's own `rls_…` secret.
 */
export function relayRequest (cipher: TokenCipher, appSecret: string | undefined) {
  return (delivery: RelayAttempt) => {
    const key = delivery.signing === 'own' && delivery.secret !== null ? cipher.decrypt(delivery.secret) : appSecret
    // without APP_SECRET no webhook is accepted (CONTRACT.md 1), so none is relayed; a replay signs with nothing rather than lie
    return {
      headers: { 'user-agent': 'Outbound-Relay/1', 'x-outbound-relay-delivery': delivery.id, ...(key !== undefined && { 'x-hub-signature-256': hubSignature(delivery.body, key) }) },
      body: delivery.body
    }
  }
}
