import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'

/** Bytes on their way in (a spooled upload, a download being checked): kept under their SHA-256, or discarded. */
export interface Spool {
  writable(): Writable
  readable(): Readable
  /** stores the spooled bytes under their SHA-256; the same bytes kept twice are one copy */
  keep(sha256: string): Promise<void>
  discard(): Promise<void>
}

/**
 * Where media bytes live, content-addressed by their lowercase hex SHA-256: the filesystem today
 * (MEDIA_DIR). An S3-compatible store implements the same calls (docs/decisions/018-media.md).
 */
export interface MediaStorage {
  spool(): Promise<Spool>
  has(sha256: string): Promise<boolean>
  /** the stored bytes, if any */
  open(sha256: string): Promise<{ stream: Readable, size: number } | undefined>
  /** forgets the stored bytes (a purge, an erasure: src/privacy/); nothing stored is no error */
  remove(sha256: string): Promise<void>
}

const SHA256_HEX = /^[0-9a-f]{64}$/
// a spool a dead process left behind
const STALE_SPOOL_MS = 24 * 60 * 60_000

/**
 * MEDIA_DIR, shared by every process (one directory or volume): files at `ab/abcdef…` (their SHA-256),
 * written under `tmp/` and renamed into place, so a reader never sees half a file and two writers of
 * the same bytes end with one.
 */
export function fileStorage (dir: string): MediaStorage {
  const spools = join(dir, 'tmp')
  const pathOf = (sha256: string) => {
    if (!SHA256_HEX.test(sha256)) throw new Error('not a SHA-256 in lowercase hex')
    return join(dir, sha256.slice(0, 2), sha256)
  }
  let swept = false

  return {
    async spool () {
      await mkdir(spools, { recursive: true })
      if (!swept) { swept = true; void sweep(spools) }
      const path = join(spools, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}`)
      return {
        writable: () => createWriteStream(path, { mode: 0o600 }),
        readable: () => createReadStream(path),
        async keep (sha256) {
          const target = pathOf(sha256)
          // durable before it is visible: a crash never leaves a named file with missing bytes
          const handle = await open(path, 'r')
          try { await handle.sync() } finally { await handle.close() }
          await mkdir(join(dir, sha256.slice(0, 2)), { recursive: true })
          await rename(path, target)
        },
        async discard () { await rm(path, { force: true }) }
      }
    },
    async has (sha256) {
      return (await stat(pathOf(sha256)).catch(() => undefined))?.isFile() === true
    },
    async open (sha256) {
      const found = await stat(pathOf(sha256)).catch(() => undefined)
      return found?.isFile() ? { stream: createReadStream(pathOf(sha256)), size: found.size } : undefined
    },
    async remove (sha256) {
      await rm(pathOf(sha256), { force: true })
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
