import { startS3 } from '../../tests/helpers/s3.js'
import { serve } from '../child.js'

// The S3-compatible server of bench/media-s3.ts (s3rver over a temporary directory), in a process of its own.
const s3 = await startS3()
process.once('exit', () => { void s3.close() })

serve({
  /** the bucket's object keys under `prefix` */
  keys: async (prefix?: string) => await s3.keys(prefix)
}, { env: s3.env() })
