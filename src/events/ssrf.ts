import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

// CONTRACT.md 10: loopback, private, shared, link-local (the cloud metadata address), unspecified,
// and the IPv4-mapped forms of them. Multicast and reserved ranges are no customer's endpoint either.
const forbidden = new BlockList()
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6')
}

export class ForbiddenTargetError extends Error {}

/** True for an address no outgoing webhook may reach. */
export function isForbiddenAddress (address: string): boolean {
  const family = isIP(address)
  if (family === 4) return forbidden.check(address, 'ipv4')
  if (family !== 6) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return forbidden.check(mapped[1], 'ipv4')
  // ::ffff:7f00:1 is 127.0.0.1 too
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (hexMapped) {
    const [high, low] = [parseInt(hexMapped[1], 16), parseInt(hexMapped[2], 16)]
    return forbidden.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4')
  }
  return forbidden.check(address, 'ipv6')
}

/** The URL as it may be stored: https only (http too when private targets are allowed), no credentials. */
export function checkUrlShape (raw: string, allowPrivate: boolean): URL {
  let url: URL
  try { url = new URL(raw) } catch { throw new ForbiddenTargetError('url: not a valid absolute URL') }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw new ForbiddenTargetError('url: must be https://')
  if (url.username || url.password) throw new ForbiddenTargetError('url: must not carry credentials')
  if (raw.length > 2048) throw new ForbiddenTargetError('url: longer than 2048 characters')
  return url
}

/** Resolves the URL's host and refuses it when any of its addresses is forbidden (at creation; each delivery checks again at connect). */
export async function checkTarget (raw: string, allowPrivate: boolean): Promise<URL> {
  const url = checkUrlShape(raw, allowPrivate)
  if (allowPrivate) return url
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => { throw new ForbiddenTargetError(`url: ${host} does not resolve`) })).map(entry => entry.address)
  if (addresses.some(isForbiddenAddress)) throw new ForbiddenTargetError('url: resolves to a loopback, private, link-local or otherwise internal address')
  return url
}
