import { mediaDir, type Config } from '../config.js'
import { s3Settings, s3Storage } from './s3-storage.js'
import { fileStorage, type MediaStorage } from './storage.js'

/** The media store MEDIA_STORE names (CONTRACT.md 22): MEDIA_DIR, or the bucket (spooling under MEDIA_DIR). */
export function configuredStorage (config: Config): MediaStorage {
  return config.MEDIA_STORE === 's3' ? s3Storage(s3Settings(config), mediaDir(config)) : fileStorage(mediaDir(config))
}
