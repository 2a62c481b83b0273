import { mediaDir } from '../../config.js'
import { migrateToS3 } from '../../media/migrate.js'
import { s3Settings } from '../../media/s3-storage.js'
import { defineCommand } from '../command.js'
import { oneOf } from '../flags.js'

export const mediaMigrate = defineCommand({
  summary: 'copies the files of MEDIA_DIR into the S3 bucket (run with the S3 settings set); the files stay in place',
  flags: { to: oneOf('s3', ['s3'] as const) },
  async run (_args, _runtime, config) {
    const { copied, present, skipped } = await migrateToS3(mediaDir(config), s3Settings(config))
    return { ok: true, copied, present, ...(skipped > 0 && { skipped }) }
  }
})
