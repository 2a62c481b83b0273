import { describe, expect, it } from 'vitest'
import { connectedWorkspace, type ConnectedWorkspace } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { upstreamRequestsTo } from '../reads/helpers.js'

describe('Idempotency-Key on POST /api/messages.php (CONTRACT.md 8)', () => {
  let other: ConnectedWorkspace
  let counter = 0
  const newKey = () => `key-${Date.now()}-${counter++}`

  const ctx = useGateway({ env: { RATE_LIMIT_MAX: '100000' }, setup: async gateway => { other = await connectedWorkspace(gateway) } })

  const keyed = async (body: Record<string, unknown>, key: string, as = ctx.workspace) => await send(ctx.gateway, body, { authorization: as.authorization, headers: { 'idempotency-key': key } })

  it('replays the first answer byte for byte, marked Idempotent-Replayed, and sends once', async () => {
    const key = newKey()
    const body = { to: '15556660001', body: 'Your order shipped', client_reference: 'o-1' }
    const first = await keyed(body, key)
    expect(first.statusCode).toBe(200)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    const again = await keyed(body, key)
    expect(again.statusCode).toBe(200)
    expect(again.body).toBe(first.body)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.headers['content-type']).toBe(first.headers['content-type'])
    expect(upstreamRequestsTo(ctx.gateway, '15556660001')).toBe(1)
    // the record names its key (the dashboard shows it)
    expect((await ctx.gateway.app.messages.get(first.json().id))?.idempotencyKey).toBe(key)
  })

  it('takes the same message as the same body whatever its encoding: JSON, a form, keys reordered, a quoted key', async () => {
    const key = newKey()
    const first = await keyed({ to: '+15556660002', body: 'Hi', preview_url: false }, key)
    const asForm = await ctx.gateway.app.inject({
      method: 'POST',
      url: '/api/messages.php',
      headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `"${key}"` },
      payload: 'preview_url=0&text=Hi&to=15556660002'
    })
    expect(asForm.statusCode).toBe(200)
    expect(asForm.headers['idempotent-replayed']).toBe('true')
    expect(asForm.body).toBe(first.body)
    expect(upstreamRequestsTo(ctx.gateway, '15556660002')).toBe(1)
  })

  it('refuses the key with another message: 422 idempotency_mismatch, nothing sent', async () => {
    const key = newKey()
    await keyed({ to: '15556660003', body: 'One' }, key)
    expectEnvelope(await keyed({ to: '15556660003', body: 'Two' }, key), 422, 'idempotency_mismatch')
    expectEnvelope(await keyed({ to: '15556660003', body: 'One', client_reference: 'x' }, key), 422, 'idempotency_mismatch')
    expect(upstreamRequestsTo(ctx.gateway, '15556660003')).toBe(1)
  })

  it('keeps keys per workspace', async () => {
    const key = newKey()
    const mine = await keyed({ to: '15556660004', body: 'Hi' }, key)
    const theirs = await keyed({ to: '15556660004', body: 'Hi' }, key, other)
    expect(theirs.statusCode).toBe(200)
    expect(theirs.headers['idempotent-replayed']).toBeUndefined()
    expect(theirs.json().id).not.toBe(mine.json().id)
    expect(upstreamRequestsTo(ctx.gateway, '15556660004')).toBe(2)
  })

  it('a malformed or empty key is a 422 naming Idempotency-Key, before anything is logged', async () => {
    for (const key of ['', 'x'.repeat(256), 'clé', '""']) {
      const answer = expectEnvelope(await keyed({ to: '15556660005', body: 'Hi' }, key), 422, 'invalid_request')
      expect(answer.field).toBe('Idempotency-Key')
    }
    expect(upstreamRequestsTo(ctx.gateway, '15556660005')).toBe(0)
    expect((await keyed({ to: '15556660005', body: 'Hi' }, 'x'.repeat(255))).statusCode).toBe(200)
  })

  it('stores no answer that created nothing: after a 422 the same key runs afresh', async () => {
    const key = newKey()
    expectEnvelope(await keyed({ to: '15556660006' }, key), 422, 'invalid_request')
    const sent = await keyed({ to: '15556660006', body: 'Now with a body' }, key)
    expect(sent.statusCode).toBe(200)
    expect(sent.headers['idempotent-replayed']).toBeUndefined()
  })

  it('replays a 502 with its record id, and never tries again', async () => {
    const key = newKey()
    const first = await keyed({ to: '15550000001', body: 'Hi' }, key)
    expect(expectEnvelope(first, 502, 'upstream_error').id).toMatch(/^msg_/)
    const again = await keyed({ to: '15550000001', body: 'Hi' }, key)
    expect(again.statusCode).toBe(502)
    expect(again.body).toBe(first.body)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(upstreamRequestsTo(ctx.gateway, '15550000001')).toBe(1)
  })

  it('answers 409 idempotency_in_progress with Retry-After while the first is in flight, then the first answer', async () => {
    const key = newKey()
    const body = { to: '15550000008', body: 'slow' }
    const first = keyed(body, key)
    await waitFor(async () => upstreamRequestsTo(ctx.gateway, '15550000008') === 1, { what: 'the first request upstream' })
    const during = await keyed(body, key)
    expectEnvelope(during, 409, 'idempotency_in_progress')
    expect(during.headers['retry-after']).toBe('1')
    const answered = await first
    expect(answered.statusCode).toBe(200)
    const after = await keyed(body, key)
    expect(after.body).toBe(answered.body)
    expect(upstreamRequestsTo(ctx.gateway, '15550000008')).toBe(1)
  })

  it('20 concurrent requests with one key: one upstream request, 20 identical answers or 409s, then identical replays', async () => {
    const key = newKey()
    const to = '15556660020'
    ctx.gateway.emulator.setFaults({ recipient: to }, { latencyMs: 300 })
    const answers = await Promise.all(Array.from({ length: 20 }, async () => await keyed({ to, body: 'once' }, key)))
    const ok = answers.filter(answer => answer.statusCode === 200)
    expect(ok.length).toBeGreaterThan(0)
    expect(new Set(ok.map(answer => answer.body)).size).toBe(1)
    for (const answer of answers.filter(answer => answer.statusCode !== 200)) expectEnvelope(answer, 409, 'idempotency_in_progress')
    const replays = await Promise.all(Array.from({ length: 20 }, async () => await keyed({ to, body: 'once' }, key)))
    expect(replays.every(answer => answer.statusCode === 200 && answer.body === ok[0].body)).toBe(true)
    expect(upstreamRequestsTo(ctx.gateway, to)).toBe(1)
  })
})
