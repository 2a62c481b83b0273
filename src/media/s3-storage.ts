import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { ConfigError, type Config } from '../config.js'
import { mediaStoreUnavailable } from '../errors.js'
import { checkedDigest, localSpools, type MediaStorage } from './storage.js'

// The smallest part S3 takes, two in flight: a 100 MB file holds about 10 MB of the process (CONTRACT.md 13).
const PART_BYTES = 5 * 1024 * 1024
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
    spool: localSpools(join(spoolDir, 'tmp'), async (path, sha256) => { await objects.put(sha256, () => createReadStream(path)) }),
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
    /** checked bytes stored under their SHA-256 unless the bucket has them already; true if they were written */
    async put (sha256: string, bytes: () => Readable): Promise<boolean> {
      if (await stat(sha256)) return false
      const upload = new Upload({
        client: settings.client,
        params: { Bucket: settings.bucket, Key: settings.prefix + checkedDigest(sha256), Body: bytes() },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false
      })
      try {
        await upload.done()
      } catch (error) {
        throw mediaStoreUnavailable(error)
      }
      return true
    }
  }
}

function isMissing (error: unknown): boolean {
  const { name, $metadata } = error as { name?: string, $metadata?: { httpStatusCode?: number } }
  return name === 'NotFound' || name === 'NoSuchKey' || ($metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket')
}
