import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { s3Objects, type S3Settings } from './s3-storage.js'

const HEX = /^[0-9a-f]{64}$/

/** What `outbound media migrate --to s3` did: files copied, files the bucket had already, files whose bytes are not their name (left out). */
export interface MigrateCounts { copied: number, present: number, skipped: number }

/**
 * Copies an fs store's files (MEDIA_DIR/ab/abcdef…) into the bucket under their SHA-256, each
 * checked against its name first; the files stay where they are. Idempotent: what the bucket has
 * is counted as present and not written again.
 */
export async function migrateToS3 (dir: string, settings: S3Settings): Promise<MigrateCounts> {
  const objects = s3Objects(settings)
  const counts: MigrateCounts = { copied: 0, present: 0, skipped: 0 }
  for (const path of await storedFiles(dir)) {
    const sha256 = path.slice(-64)
    if (await objects.stat(sha256)) { counts.present++; continue }
    if (await digestOf(path) !== sha256) { counts.skipped++; continue }
    if (await objects.put(sha256, path)) counts.copied++
    else counts.present++
  }
  return counts
}

async function storedFiles (dir: string): Promise<string[]> {
  const files: string[] = []
  for (const shard of await readdir(dir).catch(() => [])) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue
    for (const name of await readdir(join(dir, shard)).catch(() => [])) {
      if (HEX.test(name) && name.startsWith(shard)) files.push(join(dir, shard, name))
    }
  }
  return files.sort()
}

async function digestOf (path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
