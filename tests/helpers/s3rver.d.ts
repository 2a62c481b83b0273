// s3rver ships no types: the little of it the tests use.
declare module 's3rver' {
  import type { Server } from 'node:http'
  export default class S3rver {
    constructor (options: { address?: string, port?: number, directory: string, silent?: boolean, configureBuckets?: Array<{ name: string, configs?: string[] }> })
    run (): Promise<{ port: number }>
    httpServer: Server
    close (): Promise<void>
  }
}
