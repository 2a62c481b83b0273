import { describe, expect, it } from 'vitest'
import { loadConfig, publicUrl } from '../../src/config.js'
import { resolveEncryptionKey } from '../../src/local-secrets.js'

describe('configuration', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({ PORT: 3000, HOST: '127.0.0.1', DATA_DIR: './data', GRAPH_API_URL: 'https://graph.facebook.com/v25.0', QUEUE_LIMIT: 10000, PAIR_RATE_BURST: 45, PAIR_RATE_INTERVAL_MS: 6000, MAX_ATTEMPTS: 5, RATE_LIMIT_MAX: 600, BODY_LIMIT_BYTES: 262144 })
    expect(publicUrl(config)).toBe('http://127.0.0.1:3000')
  })

  it.each([
    ['PORT', 'abc'], ['PORT', '70000'], ['LOG_LEVEL', 'loud'], ['DATABASE_URL', 'mysql://db'], ['GRAPH_API_URL', 'graph'],
    ['ENCRYPTION_KEY', 'too-short'], ['QUEUE_LIMIT', '0'], ['MAX_ATTEMPTS', '1.5'], ['PUBLIC_URL', 'example.com']
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^invalid ${name}\\b`))
    try { loadConfig({ [name]: value }) } catch (error) { expect((error as Error).message).not.toContain('\n') }
  })

  it('never repeats a secret value in its error', () => {
    expect(() => loadConfig({ ENCRYPTION_KEY: 'not-a-key-but-secret' })).toThrow(/^invalid ENCRYPTION_KEY/)
    try { loadConfig({ ENCRYPTION_KEY: 'not-a-key-but-secret' }) } catch (error) { expect((error as Error).message).not.toContain('not-a-key-but-secret') }
  })

  it('requires ENCRYPTION_KEY with a PostgreSQL DATABASE_URL', () => {
    expect(() => resolveEncryptionKey(loadConfig({ DATABASE_URL: 'postgres://db/outbound' }))).toThrow(/ENCRYPTION_KEY/)
  })
})
