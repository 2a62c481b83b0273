import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/database.js'
import { testConfig } from '../helpers/config.js'

describe('health and unmatched routes', () => {
  let database: TestDatabase
  let app: FastifyInstance

  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildApp({ config: testConfig({ DATABASE_URL: database.url }), logger: false })
  })
  afterAll(async () => {
    await app.close()
    await database.drop()
  })

  it('answers /healthz and /readyz', async () => {
    expect((await app.inject('/healthz')).json()).toEqual({ ok: true })
    const ready = await app.inject('/readyz')
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toEqual({ ok: true })
  })

  it('answers an unknown route with 404 in the envelope', async () => {
    const response = await app.inject('/no/such/route')
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('answers a wrong method with 405 and an Allow header', async () => {
    const response = await app.inject({ method: 'DELETE', url: '/healthz?x=1' })
    expect(response.statusCode).toBe(405)
    expect(response.headers.allow).toBe('GET, HEAD')
    expect(response.json()).toMatchObject({ ok: false, code: 'method_not_allowed' })
  })

  it('answers /readyz with 503 once the database is gone', async () => {
    const other = await buildApp({ config: testConfig({ DATABASE_URL: database.url }), logger: false })
    await other.database.close()
    const response = await other.inject('/readyz')
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({ ok: false, code: 'not_ready' })
    await other.close()
  })
})
