import { createHmac } from 'node:crypto'

/**
 * What an erased person's opt-out is kept as (CONTRACT.md 17): an HMAC of the workspace and the
 * number (or user id) under a secret of the installation, so that the suppression check can still
 * match the number it is given, and a dump of the database names nobody.
 */
export function optOutDigest (key: Buffer, workspaceId: string, recipient: string): string {
  return `erased:${createHmac('sha256', key).update(`${workspaceId}\n${recipient}`).digest('hex')}`
}
