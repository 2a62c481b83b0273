import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const VERSION = 'v1'

/**
 * AES-256-GCM for upstream access tokens at rest. The ciphertext names its key by id, so a new
 * ENCRYPTION_KEY can be introduced while the previous ones still decrypt older rows.
 * Format: v1:<key id>:<nonce b64>:<ciphertext b64>:<tag b64>
 */
// Plaintexts kept by ciphertext: a guard against growth, far above the tokens and secrets in use.
const MAX_KEPT = 1000

export class TokenCipher {
  private readonly keys = new Map<string, Buffer>()
  private readonly currentId: string
  // Each send decrypts its connection's token and each delivery attempt its endpoint's secret: done
  // once per ciphertext instead (a decryption was ~5% of a send's CPU). A new value is a new
  // ciphertext (a new nonce), so nothing is served stale.
  private readonly plaintexts = new Map<string, string>()

  constructor (currentKey: Buffer, previousKeys: Buffer[] = []) {
    for (const key of [currentKey, ...previousKeys]) {
      if (key.length !== 32) throw new Error('an encryption key must be 32 bytes')
      this.keys.set(keyId(key), key)
    }
    this.currentId = keyId(currentKey)
  }

  encrypt (plaintext: string): string {
    const nonce = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, nonce)
    cipher.setAAD(Buffer.from(`${VERSION}:${this.currentId}`))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [VERSION, this.currentId, nonce.toString('base64'), body.toString('base64'), cipher.getAuthTag().toString('base64')].join(':')
  }

  decrypt (stored: string): string {
    let plaintext = this.plaintexts.get(stored)
    if (plaintext === undefined) {
      plaintext = this.decryptNow(stored)
      if (this.plaintexts.size >= MAX_KEPT) this.plaintexts.clear()
      this.plaintexts.set(stored, plaintext)
    }
    return plaintext
  }

  private decryptNow (stored: string): string {
    const [version, id, nonce, body, tag] = stored.split(':')
    const key = this.keys.get(id)
    if (version !== VERSION || !key || !nonce || !body || !tag) throw new Error(`cannot decrypt: unknown format or key id ${JSON.stringify(id)}`)
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64'))
    decipher.setAAD(Buffer.from(`${VERSION}:${id}`))
    decipher.setAuthTag(Buffer.from(tag, 'base64'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
  }

  /** True when the row was written under an older key and should be re-encrypted. */
  isStale (stored: string): boolean {
    return stored.split(':')[1] !== this.currentId
  }
}

/** A short public fingerprint of a key: safe to store and log. */
export function keyId (key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12)
}
