import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** A file the emulated upstream holds: uploaded by the business, or sent by a customer (inbound). */
export interface EmulatedMedia {
  id: string
  wabaId: string
  mimeType: string
  /** lowercase hex, as the media node gives it (inbound webhooks carry it in base64) */
  sha256: string
  fileSize: number
  bytes: Buffer
  filename?: string
  createdAt: number
  /** times its URL was fetched */
  downloads: number
}

export interface NewMedia { wabaId: string, bytes: Buffer, mimeType: string, filename?: string }

// Meta's media ids are 15–16 digit numbers.
let nextId = 1_100_000_000_000_000 + Math.floor(Math.random() * 1e12)

/**
 * The upstream's media (upstream-facts.md 1.4): ids that live until expired or deleted, and download
 * URLs valid for `urlTtlMs` (5 minutes upstream), signed so that only a URL handed out opens a file.
 */
export class MediaStore {
  readonly #media = new Map<string, EmulatedMedia>()
  readonly #key = randomBytes(32)
  #failures = 0
  #corruptions = 0

  constructor (readonly urlTtlMs: number, readonly strictIds: boolean) {}

  add (media: NewMedia): EmulatedMedia {
    const stored: EmulatedMedia = {
      ...media,
      id: String(nextId++),
      sha256: createHash('sha256').update(media.bytes).digest('hex'),
      fileSize: media.bytes.length,
      createdAt: Date.now(),
      downloads: 0
    }
    this.#media.set(stored.id, stored)
    return stored
  }

  get (id: string): EmulatedMedia | undefined {
    return this.#media.get(id)
  }

  /** Gone, as after its 7 (inbound) or 30 (uploaded) days: the id and its URLs answer nothing. */
  delete (id: string): boolean {
    return this.#media.delete(id)
  }

  /** Whether a send may name this id: known ids always; unknown ones only when ids are not checked strictly. */
  usable (id: string, wabaId: string): boolean {
    const media = this.#media.get(id)
    return media ? media.wabaId === wabaId : !this.strictIds
  }

  urlQuery (media: EmulatedMedia, now = Date.now()): string {
    // Rounded up to the second: a URL lives at least its TTL, never a millisecond less (floor could hand out an expired one).
    const ext = String(Math.ceil((now + this.urlTtlMs) / 1000))
    return `mid=${media.id}&ext=${ext}&hash=${this.#sign(media.id, ext)}`
  }

  /** The media a download URL opens, while it is valid. */
  fromUrl (query: { mid?: string, ext?: string, hash?: string }): EmulatedMedia | undefined {
    const { mid, ext, hash } = query
    if (!mid || !ext || !hash || Number(ext) * 1000 < Date.now()) return undefined
    const expected = Buffer.from(this.#sign(mid, ext))
    const given = Buffer.from(hash)
    return given.length === expected.length && timingSafeEqual(given, expected) ? this.#media.get(mid) : undefined
  }

  /** The next `times` downloads fail with a 500 (a flaky CDN). */
  failDownloads (times: number): void {
    this.#failures = times
  }

  takeFailure (): boolean {
    if (this.#failures <= 0) return false
    this.#failures -= 1
    return true
  }

  /** The next `times` downloads answer 200 with bytes other than the node's SHA-256 names (a CDN that alters files). */
  corruptDownloads (times: number): void {
    this.#corruptions = times
  }

  /** What this download serves: the file's bytes, or, while corruptions are due, the same length with its last byte changed. */
  takeBytes (media: EmulatedMedia): Buffer {
    if (this.#corruptions <= 0 || media.bytes.length === 0) return media.bytes
    this.#corruptions -= 1
    const altered = Buffer.from(media.bytes)
    altered[altered.length - 1] ^= 0xff
    return altered
  }

  clear (): void {
    this.#media.clear()
    this.#failures = 0
    this.#corruptions = 0
  }

  #sign (id: string, ext: string): string {
    return createHmac('sha256', this.#key).update(`${id}.${ext}`).digest('base64url')
  }
}
