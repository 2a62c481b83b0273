import type { Database } from '../../db/client.js'
import type { Config } from '../config.js'
import { publicUrl } from '../config.js'
import { sharedSecret } from '../store/settings.js'

/** WEBHOOK_VERIFY_TOKEN, or one generated once and kept in the database so every process answers alike. */
export async function resolveVerifyToken (config: Config, db: Database): Promise<string> {
  return config.WEBHOOK_VERIFY_TOKEN ?? await sharedSecret(db, 'webhook_verify_token')
}

export function webhookCallbackUrl (config: Config): string {
  return `${publicUrl(config)}/webhooks/whatsapp`
}
