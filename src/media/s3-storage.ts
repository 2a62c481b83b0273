import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { stat as fsStat } from 'node:fs/promises'
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3'
import { ConfigError, type Config } from '../config.js'
import { mediaStoreUnavailable } from '../errors.js'
import { checkedDigest, localSpools, type MediaStorage } from './storage.js'

// Parts are streamed from the spool file, so their size costs no memory: fewer requests for a large file.
const PART_BYTES = 16 * 1024 * 1024
const PARTS_IN_FLIGHT = 2

export interface S3Settings { bucket: string, prefix: string, client: S3Client }

/** The S3 settings of the configuration (CONTRACT.md 22). */
export function s3Settings (config: Config): S3Settings {
  if (!config.S3_BUCKET) throw new ConfigError('invalid S3_BUCKET: required with MEDIA_STORE=s3')
  const client = new S3Client({
    region: config.S3_REGION ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(config.S3_ENDPOINT && {
      endpoint: config.S3_ENDPOINT,
      // aws-chunked uploads with trailing checksums break MinIO, R2 and s3rver
      requestChecksumCalculation: 'WHEN_REQUIRED' as const,
      responseChecksumValidation: 'WHEN_REQUIRED' as const
    }),
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    ...(config.AWS_ACCESS_KEY_ID && config.AWS_SECRET_ACCESS_KEY && {
      credentials: { accessKeyId: config.AWS_ACCESS_KEY_ID, secretAccessKey: config.AWS_SECRET_ACCESS_KEY, sessionToken: config.AWS_SESSION_TOKEN }
    }),
    // a store that does not answer is said within 5 s: one retry, short connection timeouts
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2000, requestTimeout: 30_000 }
  })
  return { bucket: config.S3_BUCKET, prefix: config.S3_PREFIX, client }
}

/**
 * MEDIA_STORE=s3: objects named S3_PREFIX + the hex SHA-256, written once. Bytes are spooled to a
 * local file while they are hashed (the spool the caller checks), then streamed to the bucket as a
 * multipart upload and the spool removed: no copy stays on the process's disk. Reads stream the
 * object's body. Any failure but "no such object" is the store being unavailable.
 */
export function s3Storage (settings: S3Settings, spoolDir: string): MediaStorage {
  const objects = s3Objects(settings)
  return {
    storesUploads: true,
    spool: localSpools(join(spoolDir, 'tmp'), async (path, sha256) => { await objects.put(sha256, path) }),
    stat: objects.stat,
    async open (sha256) {
      const object = await objects.call(async (Bucket, Key) => await settings.client.send(new GetObjectCommand({ Bucket, Key })), sha256)
      return object && { stream: object.Body as Readable, size: object.ContentLength ?? 0 }
    },
    async remove (sha256) {
      if (!await objects.stat(sha256)) return false
      await objects.call(async (Bucket, Key) => await settings.client.send(new DeleteObjectCommand({ Bucket, Key })), sha256)
      return true
    }
  }
}

/** The bucket's objects by SHA-256: a call's "no such object" is undefined, any other failure mediaStoreUnavailable. */
export function s3Objects (settings: S3Settings) {
  async function call<T> (operation: (bucket: string, key: string) => Promise<T>, sha256: string): Promise<T | undefined> {
    try {
      return await operation(settings.bucket, settings.prefix + checkedDigest(sha256))
    } catch (error) {
      if (isMissing(error)) return undefined
      throw mediaStoreUnavailable(error)
    }
  }
  async function stat (sha256: string): Promise<{ size: number } | undefined> {
    const head = await call(async (Bucket, Key) => await settings.client.send(new HeadObjectCommand({ Bucket, Key })), sha256)
    return head && { size: head.ContentLength ?? 0 }
  }
  return {
    call,
    stat,
    /** a checked file stored under its SHA-256 unless the bucket has it already; true if it was written */
    async put (sha256: string, path: string): Promise<boolean> {
      if (await stat(sha256)) return false
      try {
        await putFile(settings, settings.prefix + checkedDigest(sha256), path)
      } catch (error) {
        throw mediaStoreUnavailable(error)
      }
      return true
    }
  }
}

/**
 * A file streamed from disk into one object: one PUT up to a part's size, else a multipart upload
 * whose parts are read from the file as they are sent (never held in memory), two at a time.
 */
async function putFile ({ client, bucket: Bucket }: S3Settings, Key: string, path: string): Promise<void> {
  const { size } = await fsStat(path)
  if (size <= PART_BYTES) {
    await client.send(new PutObjectCommand({ Bucket, Key, Body: createReadStream(path), ContentLength: size }))
    return
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }))
  try {
    const parts: Array<{ PartNumber: number, ETag?: string }> = []
    let next = 0
    const count = Math.ceil(size / PART_BYTES)
    await Promise.all(Array.from({ length: PARTS_IN_FLIGHT }, async () => {
      for (let index = next++; index < count; index = next++) {
        const start = index * PART_BYTES
        const length = Math.min(PART_BYTES, size - start)
        const { ETag } = await client.send(new UploadPartCommand({
          Bucket, Key, UploadId, PartNumber: index + 1, ContentLength: length, Body: createReadStream(path, { start, end: start + length - 1 })
        }))
        parts[index] = { PartNumber: index + 1, ETag }
      }
    }))
    await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }))
  } catch (error) {
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {})
    throw error
  }
}

function isMissing (error: unknown): boolean {
  const { name, $metadata } = error as { name?: string, $metadata?: { httpStatusCode?: number } }
  return name === 'NotFound' || name === 'NoSuchKey' || ($metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket')
}
