import { createHmac } from 'node:crypto'
import { postOwn, type Answer } from './http.js'

/**
 * X-Hub-Signature-256 of a raw body under the app secret, as Meta signs it. Computed here rather
 * than by the emulator's signBody, so that the emulator's own signatures are checked against it.
 */
export function signature (raw: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`
}

/** The headers of a webhook POST signed with the app secret. */
export function signedHeaders (raw: string, secret: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-hub-signature-256': signature(raw, secret) }
}

/** POST /webhooks/whatsapp, signed, to the listening server at `url`, on a connection of its own (status 0 when it broke). */
export async function postWebhook (url: string, raw: string, secret: string): Promise<Answer> {
  return await postOwn(`${url}/webhooks/whatsapp`, signedHeaders(raw, secret), raw)
}
