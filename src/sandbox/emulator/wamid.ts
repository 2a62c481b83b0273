import { randomBytes } from 'node:crypto'

/** Shaped like the upstream's: base64 of a small record holding the peer's number and a random message key. */
export function newWamid (peerDigits: string): string {
  const peer = Buffer.from(peerDigits.slice(0, 20))
  const key = Buffer.from(randomBytes(10).toString('hex').toUpperCase())
  const record = Buffer.concat([
    Buffer.from([0x1c, 0x18, peer.length]), peer,
    Buffer.from([0x15, 0x02, 0x00, 0x11, 0x18, key.length]), key,
    Buffer.from([0x00])
  ])
  return `wamid.${record.toString('base64')}`
}
