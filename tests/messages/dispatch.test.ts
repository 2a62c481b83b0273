import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { messages } from '../../db/schema.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { freePort } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope, latestRecord, RECIPIENT } from './helpers.js'

// well above the 700 ms the slow-answer tests wait: on a loaded machine the emulator, on this process's
// event loop, answered those past 800 ms
const TIMEOUT_MS = 2000

/** Dispatch: the record ends sent or failed, the upstream's error is reported (502). Pacing and retries: tests/pacer. */
describe('POST /api/messages.php: dispatch and upstream failures', () => {
  const ctx = useGateway({
    env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) },
    // Status webhooks would move records past `sent` at once; what the send itself leaves is the point here.
    setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) }
  })

  const text = (to: string) => send(ctx.gateway, { to, body: 'Hello' }, { authorization: ctx.workspace.authorization })

  it('a permanent refusal: 502 upstream_error with the upstream code and message, record failed with the code', async () => {
    const body = expectEnvelope(await text('15550000001'), 502, 'upstream_error')
    expect(body.upstream).toEqual({ code: 131026, message: '(#131026) Message undeliverable' })
    expect(body.error).toContain('131026')
    expect(await latestRecord(ctx.gateway, ctx.workspace.workspaceId)).toMatchObject({ recipient: '15550000001', status: 'failed', errorCode: '131026', errorText: expect.stringContaining('Message undeliverable'), wamid: null, attempts: 1 })
  })

  it('a transient upstream error that persists is retried until the attempts are spent, then reported as it is', async () => {
    const requests = ctx.gateway.emulator.requests.length
    const body = expectEnvelope(await text('15550000002'), 502, 'upstream_error')
    expect(body.upstream).toMatchObject({ code: 131000 })
    expect(ctx.gateway.emulator.requests.length - requests).toBe(5)
    expect(await latestRecord(ctx.gateway, ctx.workspace.workspaceId)).toMatchObject({ status: 'failed', errorCode: '131000', attempts: 5 })
  })

  it('a fault set on the emulator for one recipient is reported with its code', async () => {
    const to = '15557770001'
    ctx.gateway.emulator.setFaults({ recipient: to }, { permanent: { code: 131047, httpStatus: 400 } })
    expect(expectEnvelope(await text(to), 502, 'upstream_error').upstream).toMatchObject({ code: 131047 })
    expect(await latestRecord(ctx.gateway, ctx.workspace.workspaceId)).toMatchObject({ status: 'failed', errorCode: '131047' })
  })

  it('no answer in time: 502 upstream_timeout, record failed upstream_timeout', async () => {
    const started = Date.now()
    expectEnvelope(await text('15550000004'), 502, 'upstream_timeout')
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
    expect(await latestRecord(ctx.gateway, ctx.workspace.workspaceId)).toMatchObject({ status: 'failed', errorCode: 'upstream_timeout', attempts: 1 })
  })

  it('a connection reset after sending: 502 outcome_unknown, record failed, outcome unknown', async () => {
    const body = expectEnvelope(await text('15550000006'), 502, 'outcome_unknown')
    expect(body.upstream).toBeUndefined()
    expect(await latestRecord(ctx.gateway, ctx.workspace.workspaceId)).toMatchObject({ status: 'failed', errorCode: 'outcome_unknown', errorText: expect.stringMatching(/unknown/) })
  })

  it('the record is pending while the upstream has not answered, then ends sent with the wamid', async () => {
    const to = '15557770002'
    ctx.gateway.emulator.setFaults({ recipient: to }, { latencyMs: 700 })
    const answer = text(to)
    await waitFor(async () => (await latestRecord(ctx.gateway, ctx.workspace.workspaceId))?.recipient === to, { timeoutMs: 5000, what: 'the record' })
    const pending = await latestRecord(ctx.gateway, ctx.workspace.workspaceId)
    expect(pending).toMatchObject({ status: 'pending', wamid: null, attempts: 0 })
    expect(ctx.gateway.emulator.sentMessages.some(sent => sent.to === to)).toBe(false)
    const response = await answer
    expect(response.statusCode).toBe(200)
    expect(await ctx.gateway.app.messages.get(pending.id)).toMatchObject({ status: 'sent', wamid: response.json().wamid, attempts: 1 })
  })

  it('a client that goes away does not cancel the send: the record still ends sent', async () => {
    const to = '15557770003'
    ctx.gateway.emulator.setFaults({ recipient: to }, { latencyMs: 600 })
    const controller = new AbortController()
    const request = fetch(`${ctx.gateway.url}/api/messages.php`, {
      method: 'POST',
      headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ to, body: 'Hello' }),
      signal: controller.signal
    }).catch((error: Error) => error)
    await waitFor(async () => (await latestRecord(ctx.gateway, ctx.workspace.workspaceId))?.recipient === to, { timeoutMs: 5000, what: 'the record' })
    controller.abort()
    expect(await request).toBeInstanceOf(Error)
    const { id } = await latestRecord(ctx.gateway, ctx.workspace.workspaceId)
    await waitFor(async () => (await ctx.gateway.app.messages.get(id))?.status !== 'pending', { timeoutMs: 5000, what: 'the record settled' })
    const record = await ctx.gateway.app.messages.get(id)
    expect(record).toMatchObject({ status: 'sent', wamid: expect.stringMatching(/^wamid\./) })
    expect(ctx.gateway.emulator.sentMessages.find(sent => sent.wamid === record?.wamid)?.to).toBe(to)
    // the server is still answering
    expect((await text(RECIPIENT)).statusCode).toBe(200)
  })

  it('the send never moves back a record that a status webhook (matched by its id) already moved on', async () => {
    const { app } = ctx.gateway
    const record = (await app.messages.create({ id: 'msg_early_status', workspaceId: ctx.workspace.workspaceId, apiKeyId: ctx.workspace.apiKeyId, phoneNumberId: '106540352242922', recipient: RECIPIENT, type: 'text', payload: {} })).record
    // what the webhook route does when a status outruns the send's answer
    await app.database.db.update(messages).set({ status: 'delivered', wamid: 'wamid.early' }).where(eq(messages.id, record.id))
    await app.messages.markSent(record.id, { wamid: 'wamid.early', attempts: 1 })
    expect(await app.messages.get(record.id)).toMatchObject({ status: 'delivered', wamid: 'wamid.early', attempts: 1 })
    await app.messages.markFailed(record.id, { errorCode: 'upstream_timeout', errorText: 'late', attempts: 1 })
    expect(await app.messages.get(record.id)).toMatchObject({ status: 'delivered', errorCode: null })
  })

  it('with status webhooks on, a sent message moves on to read through the webhook route', async () => {
    ctx.gateway.emulator.setStatusOptions('global', {})
    try {
      const response = await text('15557770004')
      expect(response.statusCode).toBe(200)
      const { id } = await latestRecord(ctx.gateway, ctx.workspace.workspaceId)
      await waitFor(async () => (await ctx.gateway.app.messages.get(id))?.status === 'read', { timeoutMs: 5000, what: 'the record read' })
      expect(await ctx.gateway.app.messages.get(id)).toMatchObject({ wamid: response.json().wamid, attempts: 1 })
    } finally {
      ctx.gateway.emulator.setStatusOptions('global', { statuses: [] })
    }
  })

  it('the upstream token is the connection\'s', async () => {
    const response = await text(RECIPIENT)
    const request = ctx.gateway.emulator.requests.findLast(recorded => recorded.path.endsWith('/messages'))
    expect(response.statusCode).toBe(200)
    expect(request?.headers.authorization).toBe(`Bearer ${defaultAccount().accessToken}`)
  })
})

describe('POST /api/messages.php: an unreachable upstream', () => {
  // a port free when the gateway starts; no workspace can connect through it, so the test makes its own
  const ctx = useGateway({ env: async () => ({ GRAPH_API_URL: `http://127.0.0.1:${await freePort()}/v25.0` }), plan: null })

  it('502 upstream_unavailable, record failed upstream_unavailable', async () => {
    const { app } = ctx.gateway
    const workspace = await app.workspaces.create('unreachable', 'growth')
    await app.connections.replace(workspace.id, '102290129340398', app.cipher.encrypt('token'), [{ id: '106540352242922', display_phone_number: '+1 555-078-3881' }])
    const { secret } = await app.keys.create(workspace.id, 'k')
    expectEnvelope(await send(ctx.gateway, { to: RECIPIENT, body: 'Hello' }, { authorization: `Bearer ${secret}` }), 502, 'upstream_unavailable')
    // nothing was sent, so every attempt (MAX_ATTEMPTS, 5 by default) was made
    expect(await latestRecord(ctx.gateway, workspace.id)).toMatchObject({ status: 'failed', errorCode: 'upstream_unavailable', attempts: 5 })
  })
})
