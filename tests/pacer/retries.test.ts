import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { recordOf, sendText } from './helpers.js'

const TIMEOUT_MS = 500

/**
 * Only failures known to be transient are tried again, each attempt paced; an unknown outcome never
 * is. One gateway for the file (MAX_ATTEMPTS 3 is as many as any test here needs); the upstream
 * going away comes last, since it takes the emulator with it. No status webhook may be on its way
 * to the gateway when the emulator goes.
 */
const ctx = useGateway({
  env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS), MAX_ATTEMPTS: '3' },
  setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) }
})

describe('pacer: retries against the emulator', () => {
  const callsTo = (to: string) => ctx.gateway.emulator.requests.filter(request => (request.body as { to?: string } | undefined)?.to === to)
  const record = async (to: string) => await recordOf(ctx.gateway, ctx.workspace.workspaceId, to)

  it('503 twice, then accepted: 200 after three attempts, counted in the record', async () => {
    const to = '15557000001'
    ctx.gateway.emulator.setFaults({ recipient: to }, { transient: { code: 131016, httpStatus: 503, times: 2 } })
    const response = await sendText(ctx.gateway, ctx.workspace, to)
    expect(response.statusCode).toBe(200)
    expect(callsTo(to)).toHaveLength(3)
    expect(await record(to)).toMatchObject({ status: 'sent', attempts: 3, wamid: response.json().wamid, errorCode: null })
  })

  it('Retry-After is a minimum: the retry waits at least that long', async () => {
    const to = '15557000002'
    ctx.gateway.emulator.setFaults({ recipient: to }, { transient: { code: 131016, httpStatus: 503, times: 1 }, retryAfter: 1 })
    expect((await sendText(ctx.gateway, ctx.workspace, to)).statusCode).toBe(200)
    const [first, second] = callsTo(to)
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000)
    expect(await record(to)).toMatchObject({ status: 'sent', attempts: 2 })
  })

  it('the throughput code (130429) is transient too: retried to 200', async () => {
    const to = '15557000003'
    ctx.gateway.emulator.setFaults({ recipient: to }, { transient: { code: 130429, times: 1 } })
    expect((await sendText(ctx.gateway, ctx.workspace, to)).statusCode).toBe(200)
    expect(await record(to)).toMatchObject({ status: 'sent', attempts: 2 })
  })

  it('a permanent error fails at once: 502 with the upstream\'s code, one attempt', async () => {
    const to = '15557000004'
    ctx.gateway.emulator.setFaults({ recipient: to }, { permanent: { code: 131047, httpStatus: 400 } })
    expect(expectEnvelope(await sendText(ctx.gateway, ctx.workspace, to), 502, 'upstream_error').upstream).toMatchObject({ code: 131047 })
    expect(callsTo(to)).toHaveLength(1)
    expect(await record(to)).toMatchObject({ status: 'failed', errorCode: '131047', attempts: 1 })
  })

  it('no answer in time: 502 upstream_timeout after one attempt, never retried (it may have been sent)', async () => {
    const to = '15557000005'
    ctx.gateway.emulator.setFaults({ recipient: to }, { hang: true })
    const started = Date.now()
    expectEnvelope(await sendText(ctx.gateway, ctx.workspace, to), 502, 'upstream_timeout')
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
    expect(callsTo(to)).toHaveLength(1)
    expect(await record(to)).toMatchObject({ status: 'failed', errorCode: 'upstream_timeout', attempts: 1 })
  })

  it('a connection reset after sending: 502 after one attempt, never retried', async () => {
    const to = '15557000006'
    ctx.gateway.emulator.setFaults({ recipient: to }, { reset: true })
    expectEnvelope(await sendText(ctx.gateway, ctx.workspace, to), 502, 'outcome_unknown')
    expect(callsTo(to)).toHaveLength(1)
    expect(await record(to)).toMatchObject({ status: 'failed', errorCode: 'outcome_unknown', attempts: 1, errorText: expect.stringMatching(/unknown/) })
  })

  it('a retry that could only come after the deadline is not made: the last upstream error, 502', async () => {
    const to = '15557000007'
    ctx.gateway.emulator.setFaults({ recipient: to }, { transient: { code: 131016, httpStatus: 503, times: 3 }, retryAfter: 120 })
    const started = Date.now()
    expect(expectEnvelope(await sendText(ctx.gateway, ctx.workspace, to), 502, 'upstream_error').upstream).toMatchObject({ code: 131016 })
    expect(Date.now() - started).toBeLessThan(5000)
    expect(await record(to)).toMatchObject({ status: 'failed', errorCode: '131016', attempts: 1 })
  })
})

describe('pacer: retries when the upstream goes away', () => {
  it('nothing was sent, so every attempt is made: 502 upstream_unavailable after MAX_ATTEMPTS', async () => {
    const { gateway, workspace } = ctx
    expect((await sendText(gateway, workspace, '15557000010')).statusCode).toBe(200)
    await gateway.emulator.close()
    await new Promise(resolve => setTimeout(resolve, 100))
    const to = '15557000011'
    expectEnvelope(await sendText(gateway, workspace, to), 502, 'upstream_unavailable')
    expect(await recordOf(gateway, workspace.workspaceId, to)).toMatchObject({ status: 'failed', errorCode: 'upstream_unavailable', attempts: 3 })
  })
})
