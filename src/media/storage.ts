import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'

/** Bytes on their way in (a spooled upload, a download being checked): kept under their SHA-256, or discarded. */
export interface Spool {
  writable(): Writable
  readable(): Readable
  /** stores the spooled bytes under their SHA-256 (the caller hashed them); the same bytes kept twice are one copy; the spool is gone after */
  keep(sha256: string): Promise<void>
  discard(): Promise<void>
}

/**
 * Where media bytes live, content-addressed by their lowercase hex SHA-256 (CONTRACT.md 22): the
 * filesystem (MEDIA_STORE=fs, MEDIA_DIR) or an S3-compatible bucket (MEDIA_STORE=s3, s3-storage.ts).
 * A store that cannot be reached throws mediaStoreUnavailable (503, retried later by the mirror).
 */
export interface MediaStorage {
  /**
   * Uploaded files are stored too, so that every host serves them (s3, CONTRACT.md 22); fs keeps only
   * the mirror's, and an upload's download is fetched from the upstream, as before there was a choice.
   */
  readonly storesUploads: boolean
  spool(): Promise<Spool>
  /** the stored file's size, if it is stored */
  stat(sha256: string): Promise<{ size: number } | undefined>
  /** the stored bytes, if any */
  open(sha256: string): Promise<{ stream: Readable, size: number } | undefined>
  /** deletes the stored file (a purge, an erasure); true if there was one */
  remove(sha256: string): Promise<boolean>
}

const SHA256_HEX = /^[0-9a-f]{64}$/
// a spool a dead process left behind
const STALE_SPOOL_MS = 24 * 60 * 60_000

/** The file name a SHA-256 is stored under (fs) or ends an object's key (s3); throws for anything else. */
export function checkedDigest (sha256: string): string {
  if (!SHA256_HEX.test(sha256)) throw new Error('not a SHA-256 in lowercase hex')
  return sha256
}

/**
 * MEDIA_DIR, shared by every process (one directory or volume): files at `ab/abcdef…` (their SHA-256),
 * written under `tmp/` and renamed into place, so a reader never sees half a file and two writers of
 * the same bytes end with one.
 */
export function fileStorage (dir: string): MediaStorage {
  const pathOf = (sha256: string) => join(dir, checkedDigest(sha256).slice(0, 2), sha256)
  const spools = localSpools(join(dir, 'tmp'), async (path, sha256) => {
    // durable before it is visible: a crash never leaves a named file with missing bytes
    const handle = await open(path, 'r')
    try { await handle.sync() } finally { await handle.close() }
    await mkdir(join(dir, sha256.slice(0, 2)), { recursive: true })
    await rename(path, pathOf(sha256))
  })
  const statOf = async (sha256: string) => {
    const found = await stat(pathOf(sha256)).catch(() => undefined)
    return found?.isFile() ? { size: found.size } : undefined
  }

  return {
    storesUploads: false,
    spool: spools,
    stat: statOf,
    async open (sha256) {
      const found = await statOf(sha256)
      return found && { stream: createReadStream(pathOf(sha256)), size: found.size }
    },
    async remove (sha256) {
      if (!await statOf(sha256)) return false
      await rm(pathOf(sha256), { force: true })
      return true
    }
  }
}

/**
 * Spool files in a local directory (swept of a dead process's leftovers once), each handed to
 * `store` on keep: renamed into MEDIA_DIR, or copied to the bucket and removed.
 */
export function localSpools (spools: string, store: (path: string, sha256: string) => Promise<void>): () => Promise<Spool> {
  let swept = false
  return async function spool () {
    await mkdir(spools, { recursive: true })
    if (!swept) { swept = true; void sweep(spools) }
    const path = join(spools, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}`)
    const discard = async () => { await rm(path, { force: true }) }
    return {
      writable: () => createWriteStream(path, { mode: 0o600 }),
      readable: () => createReadStream(path),
      async keep (sha256) {
        try {
          await store(path, checkedDigest(sha256))
        } finally {
          await discard()
        }
      },
      discard
    }
  }
}

async function sweep (spools: string): Promise<void> {
  for (const name of await readdir(spools).catch(() => [])) {
    const path = join(spools, name)
    const found = await stat(path).catch(() => undefined)
    if (found && Date.now() - found.mtimeMs > STALE_SPOOL_MS) await rm(path, { force: true }).catch(() => {})
  }
}
