import { createHmac, timingSafeEqual } from 'node:crypto'

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body keyed with the app secret>`, compared in constant time. */
export function validSignature (rawBody: Buffer, header: unknown, appSecret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false
  const presented = Buffer.from(header.slice('sha256='.length), 'hex')
  const expected = hubDigest(rawBody, appSecret)
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}

/** Whether a signature header could be one at all (`sha256=` and 64 hex digits): checked before the body is read. */
export function wellFormedSignature (header: unknown): boolean {
  return typeof header === 'string' && /^sha256=[0-9a-fA-F]{64}$/.test(header)
}

function hubDigest (body: Buffer, key: string): Buffer {
  return createHmac('sha256', key).update(body).digest()
}

/** The header as Meta writes it over these bytes: what a relay target checks (CONTRACT.md 18). */
export function hubSignature (body: Buffer, key: string): string {
  return 'sha256=' + hubDigest(body, key).toString('hex')
}
