import { randomBytes } from 'node:crypto'
import type { Database } from '../../db/client.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { optOutDigest } from '../crypto/opt-out-digest.js'
import { sharedSecret } from '../store/settings.js'

export type Digest = (workspaceId: string, recipient: string) => string

/**
 * The key of erased opt-outs' HMACs: generated once per installation and kept in the database
 * encrypted under ENCRYPTION_KEY, beside the upstream tokens it protects (a rotation of
 * ENCRYPTION_KEY with ENCRYPTION_KEY_PREVIOUS still opens it). Every process reads the same key.
 */
export async function optOutDigester (db: Database, cipher: TokenCipher): Promise<Digest> {
  const stored = await sharedSecret(db, 'opt_out_hmac_key', () => cipher.encrypt(randomBytes(32).toString('base64')))
  const key = Buffer.from(cipher.decrypt(stored), 'base64')
  return (workspaceId, recipient) => optOutDigest(key, workspaceId, recipient)
}
