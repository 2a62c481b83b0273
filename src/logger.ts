import type { FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'
import { safeError } from './safe-error.js'

/** Whatever path a secret could take into a log line is censored here, once for every logger. */
export const REDACTED_PATHS = [
  'req.headers.authorization', 'headers.authorization', 'authorization',
  '*.authorization', '*.accessToken', '*.access_token', '*.secret', '*.token', '*.verify_token', '*.appSecret',
  'accessToken', 'access_token', 'secret', 'token'
]

export function loggerOptions (config: Pick<Config, 'LOG_LEVEL'>): FastifyServerOptions['logger'] {
  return {
    level: config.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      // every error of every logger: by type and code, a database error by SQL state and statement, never its parameters
      err: safeError,
      error: safeError,
      // The query string is dropped: the webhook handshake carries hub.verify_token there.
      req: (request: { method: string, url: string, ip?: string, id?: string }) => ({ method: request.method, path: request.url.split('?')[0], ip: request.ip })
    }
  }
}
