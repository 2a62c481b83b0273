import { describe, expect, it } from 'vitest'
import type { TestGateway } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { OTHER_NUMBER, recordOf, sendAndLeave, sendText } from './helpers.js'

const sentTo = (gateway: TestGateway, to: string) => gateway.emulator.sentMessages.filter(sent => sent.to === to)

/** 503 with Retry-After when a message cannot be sent in time or the queue is full; nothing is sent then. */
describe('pacer: a full queue (one message per second, three may wait)', () => {
  const ctx = useGateway({
    env: { THROUGHPUT_MPS: '1', QUEUE_LIMIT: '3', DISPATCH_DEADLINE_MS: '10000' },
    setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) }
  })

  it('past QUEUE_LIMIT waiting: 503 queue_full with Retry-After, nothing sent, record failed', async () => {
    const recipients = Array.from({ length: 8 }, (_, index) => `1555200000${index}`)
    const responses = await Promise.all(recipients.map(async to => await sendText(ctx.gateway, ctx.workspace, to)))
    const full = recipients.filter((_, index) => responses[index].statusCode === 503)
    expect(full.length).toBeGreaterThanOrEqual(3)
    expect(responses.filter(response => response.statusCode === 200).length).toBe(8 - full.length)
    for (const [index, to] of recipients.entries()) {
      if (responses[index].statusCode !== 503) continue
      expectEnvelope(responses[index], 503, 'queue_full')
      expect(Number(responses[index].headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(sentTo(ctx.gateway, to)).toEqual([])
      expect(await recordOf(ctx.gateway, ctx.workspace.workspaceId, to)).toMatchObject({ status: 'failed', errorCode: 'queue_full', attempts: 0 })
    }
  })

  it('a client that leaves while its message waits: the message is not sent, the record says cancelled', async () => {
    const aheadOf = ['15552100001', '15552100002']
    const ahead = aheadOf.map(async to => await sendText(ctx.gateway, ctx.workspace, to, { phone_number_id: OTHER_NUMBER }))
    // the two are in line first (records are written in arrival order): the third must wait behind them
    await waitFor(async () => (await Promise.all(aheadOf.map(async to => await recordOf(ctx.gateway, ctx.workspace.workspaceId, to)))).every(record => record !== undefined), { timeoutMs: 5000, what: 'the two ahead recorded' })
    const to = '15552100003'
    const client = sendAndLeave(ctx.gateway, ctx.workspace.authorization, { to, body: 'Hello', phone_number_id: OTHER_NUMBER })
    await waitFor(async () => (await recordOf(ctx.gateway, ctx.workspace.workspaceId, to)) !== undefined, { timeoutMs: 5000, what: 'the third recorded' })
    client.leave()
    await client.closed
    await waitFor(async () => (await recordOf(ctx.gateway, ctx.workspace.workspaceId, to))?.status !== 'pending', { timeoutMs: 5000, what: 'the record settled' })
    expect(await recordOf(ctx.gateway, ctx.workspace.workspaceId, to)).toMatchObject({ status: 'failed', errorCode: 'cancelled', attempts: 0 })
    expect((await Promise.all(ahead)).map(response => response.statusCode)).toEqual([200, 200])
    expect(sentTo(ctx.gateway, to)).toEqual([])
  })
})

describe('pacer: the dispatch deadline (1.5 s; one message per second; one per recipient per minute)', () => {
  const ctx = useGateway({
    env: { THROUGHPUT_MPS: '1', DISPATCH_DEADLINE_MS: '1500', UPSTREAM_TIMEOUT_MS: '3000', PAIR_RATE_BURST: '1', PAIR_RATE_INTERVAL_MS: '60000' },
    setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) }
  })

  async function expectNotSent (to: string): Promise<void> {
    expect(sentTo(ctx.gateway, to)).toEqual([])
    expect(await recordOf(ctx.gateway, ctx.workspace.workspaceId, to)).toMatchObject({ status: 'failed', errorCode: 'dispatch_timeout', attempts: 0 })
  }

  it('a number\'s backlog longer than the deadline: 503 dispatch_timeout at once, nothing sent', async () => {
    const recipients = ['15552200001', '15552200002', '15552200003', '15552200004']
    const responses = await Promise.all(recipients.map(async to => await sendText(ctx.gateway, ctx.workspace, to)))
    const late = recipients.filter((_, index) => responses[index].statusCode === 503)
    expect(late.length).toBeGreaterThanOrEqual(2)
    for (const [index, to] of recipients.entries()) {
      if (responses[index].statusCode !== 503) continue
      expectEnvelope(responses[index], 503, 'dispatch_timeout')
      expect(Number(responses[index].headers['retry-after'])).toBeGreaterThanOrEqual(1)
      await expectNotSent(to)
    }
  })

  it('held in the pacer past the deadline (the number\'s last send hangs): 503 dispatch_timeout, nothing sent', async () => {
    const hung = '15552200011'
    ctx.gateway.emulator.setFaults({ recipient: hung }, { hang: true })
    const hanging = sendText(ctx.gateway, ctx.workspace, hung, { phone_number_id: OTHER_NUMBER })
    await waitFor(() => ctx.gateway.emulator.requests.some(request => (request.body as { to?: string })?.to === hung), { timeoutMs: 5000, what: 'the hanging send upstream' })
    const to = '15552200012'
    const started = Date.now()
    expectEnvelope(await sendText(ctx.gateway, ctx.workspace, to, { phone_number_id: OTHER_NUMBER }), 503, 'dispatch_timeout')
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    await expectNotSent(to)
    expectEnvelope(await hanging, 502, 'upstream_timeout')
  })

  it('a pair token further away than the deadline: 503 dispatch_timeout at once, Retry-After when it is due', async () => {
    const to = '15552200021'
    await waitFor(async () => (await sendText(ctx.gateway, ctx.workspace, to)).statusCode === 200, { timeoutMs: 10_000, what: 'a 200' })
    const started = Date.now()
    const response = await sendText(ctx.gateway, ctx.workspace, to)
    expect(Date.now() - started).toBeLessThan(1000)
    expectEnvelope(response, 503, 'dispatch_timeout')
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(50)
    const records = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 100 })).filter(record => record.recipient === to)
    expect(records.map(record => [record.status, record.errorCode])).toContainEqual(['failed', 'dispatch_timeout'])
    expect(sentTo(ctx.gateway, to)).toHaveLength(1)
  })
})
