import { randomBytes } from 'node:crypto'
import { loadConfig, type Config } from '../../src/config.js'
import { poolEnv } from './database.js'

export const TEST_ENCRYPTION_KEY = randomBytes(32).toString('base64')

/** A validated Config as the server would read it from these environment values. */
export function testConfig (env: Record<string, string | undefined> = {}): Config {
  return loadConfig({ LOG_LEVEL: 'silent', ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ...poolEnv(), ...env })
}
