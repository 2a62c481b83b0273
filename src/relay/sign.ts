import { randomBytes } from 'node:crypto'

/** A new `own` secret: `rls_` and 32 random bytes in base64url; the whole string is the HMAC key. */
export function newRelaySecret (): string {
  return 'rls_' + randomBytes(32).toString('base64url')
}
