import { describe, expect, it } from 'vitest'
import { attemptSignIn, userIn } from '../dashboard/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'

describe('the sign-in limit counts failures only', () => {
  const ctx = useGateway({ env: { TRUST_PROXY: 'true' }, plan: null })

  it('the 12th good sign-in in a window is let in; after 10 failures even the right password is refused', async () => {
    const { app } = ctx.gateway
    const workspace = await app.workspaces.create('Sign-in limit', 'free')
    const login = await userIn(app, workspace.id)
    const from = { 'x-forwarded-for': '10.9.0.1' }
    for (let attempt = 1; attempt <= 12; attempt++) expect((await attemptSignIn(app, login, from)).statusCode, `good sign-in ${attempt}`).toBe(303)
    for (let attempt = 1; attempt <= 10; attempt++) expect((await attemptSignIn(app, { ...login, password: `guess ${attempt}` }, from)).statusCode).toBe(401)
    const refused = await attemptSignIn(app, login, from)
    expect(refused.statusCode).toBe(429)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
  }, 120_000)
})
