import { createHmac, timingSafeEqual } from 'node:crypto'

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body keyed with the app secret>`, compared in constant time. */
export function validSignature (rawBody: Buffer, header: unknown, appSecret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false
  const presented = Buffer.from(header.slice('sha256='.length), 'hex')
  const expected = createHmac('sha256', appSecret).update(rawBody).digest()
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}
