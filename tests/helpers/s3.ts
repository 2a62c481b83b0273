import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import S3rver from 's3rver'
import { startFaultProxy, type FaultProxy } from './fault-proxy.js'

export interface TestS3 {
  /** http://127.0.0.1:PORT of the server itself */
  endpoint: string
  bucket: string
  /** the MEDIA_STORE=s3 environment of a gateway that reaches the server directly (or through `via`) */
  env (via?: FaultProxy): Record<string, string>
  /** the keys of the bucket's objects (under `prefix`) */
  keys (prefix?: string): Promise<string[]>
  /** a fault proxy in front of the server, closed with it */
  proxy (): Promise<FaultProxy>
  close (): Promise<void>
}

const KEY_CHARACTERS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_./'

/** An S3-compatible server (s3rver, on a free port, over a temporary directory) with one empty bucket. */
export async function startS3 (): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'outbound-s3rver-'))
  const bucket = 'outbound-media'
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const proxies: FaultProxy[] = []
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
  return {
    endpoint,
    bucket,
    env: via => ({
      MEDIA_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: via ? `http://127.0.0.1:${via.port}` : endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      // s3rver's own credentials: it checks the signatures
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER'
    }),
    async keys (prefix = '') {
      // s3rver 3.7 cannot page a listing: the continuation token's cipher is gone from Node 20's
      // OpenSSL 3 (ERR_OSSL_EVP_UNSUPPORTED, answered 500 InternalError), so a listing longer than
      // one page is split by the keys' next character instead
      async function listed (under: string): Promise<string[]> {
        try {
          const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under, MaxKeys: 1000 }))
          if (page.IsTruncated !== true) return (page.Contents ?? []).map(object => object.Key!)
        } catch (error) {
          if ((error as { name?: string }).name !== 'InternalError') throw error
        }
        return (await Promise.all([...KEY_CHARACTERS].map(async next => await listed(under + next)))).flat()
      }
      return (await listed(prefix)).sort()
    },
    async proxy () {
      const proxy = await startFaultProxy({ port })
      proxies.push(proxy)
      return proxy
    },
    async close () {
      client.destroy()
      await Promise.all(proxies.map(async proxy => await proxy.close()))
      server.httpServer.closeAllConnections()
      await server.close()
      await rm(directory, { recursive: true, force: true })
    }
  }
}
