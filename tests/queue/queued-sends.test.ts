import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { rowsOf } from '../../db/client.js'
import { handOver, settled } from './helpers.js'

/** Prefer: respond-async (CONTRACT.md 9): hand-over, then the server's own dispatch. */
describe('queued sends: hand-over and dispatch', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
  })
  afterAll(async () => { await gateway?.close() })

  it('answers 202 with the id, Preference-Applied and Location; the record goes queued → sent', async () => {
    const response = await handOver(gateway, workspace, { to: '15552220001' })
    expect(response.statusCode).toBe(202)
    const body = response.json()
    expect(body).toEqual({ ok: true, id: expect.stringMatching(/^msg_/), status: 'queued' })
    expect(response.headers['preference-applied']).toBe('respond-async')
    expect(response.headers.location).toBe(`/api/messages.php?id=${body.id}`)
    const record = await settled(gateway, body.id)
    expect(record).toMatchObject({ status: 'sent', attempts: 1, errorCode: null })
    expect(gateway.emulator.sentMessages.filter(sent => sent.wamid === record.wamid)).toHaveLength(1)
  })

  it('a Prefer header with other preferences and parameters still asks for it; without one the send is synchronous', async () => {
    const queued = await handOver(gateway, workspace, { to: '15552220002' })
    expect(queued.statusCode).toBe(202)
    const mixed = await gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: workspace.authorization, 'content-type': 'application/json', prefer: 'return=minimal, Respond-Async; wait=10' }, payload: JSON.stringify({ to: '15552220003', body: 'Hi' }) })
    expect(mixed.statusCode).toBe(202)
    const sync = await gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: workspace.authorization, 'content-type': 'application/json', prefer: 'return=minimal' }, payload: JSON.stringify({ to: '15552220004', body: 'Hi' }) })
    expect(sync.statusCode).toBe(200)
    expect(sync.json().status).toBe('sent')
  })

  it('the checks come first: a bad body is 422 and nothing is queued', async () => {
    const logged = async () => (await gateway.app.messages.list(workspace.workspaceId, { limit: 1000 })).length
    const before = await logged()
    const response = await handOver(gateway, workspace, { to: 'nope' })
    expect(response.statusCode).toBe(422)
    expect(response.json().code).toBe('invalid_request')
    expect(await logged()).toBe(before)
  })

  it('keeps arrival order per recipient', async () => {
    const to = '15552220010'
    const ids: string[] = []
    for (let index = 0; index < 6; index++) ids.push((await handOver(gateway, workspace, { to, body: `number ${index}` })).json().id)
    for (const id of ids) expect((await settled(gateway, id)).status).toBe('sent')
    const bodies = gateway.emulator.sentMessages.filter(sent => sent.to === to).sort((a, b) => a.at - b.at)
      .map(sent => (sent.payload as { text: { body: string } }).text.body)
    expect(bodies).toEqual(ids.map((_, index) => `number ${index}`))
  })

  it('a failure upstream is classified as for a live send: the record ends failed with the upstream code', async () => {
    const response = await handOver(gateway, workspace, { to: '15550000001' })
    const record = await settled(gateway, response.json().id)
    expect(record).toMatchObject({ status: 'failed', errorCode: '131026' })
  })
})

describe('queued sends: ASYNC_QUEUE_LIMIT and QUEUE_MAX_AGE_MS', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  // one message per recipient a minute: the second and later to one recipient wait in the queue
  const PAIR = { burst: 1, intervalMs: 60_000 }

  beforeAll(async () => {
    gateway = await startGateway({
      env: { ASYNC_QUEUE_LIMIT: '3', QUEUE_MAX_AGE_MS: '2000', PAIR_RATE_BURST: String(PAIR.burst), PAIR_RATE_INTERVAL_MS: String(PAIR.intervalMs) },
      emulator: { pairRateBurst: PAIR.burst, pairRateIntervalMs: PAIR.intervalMs }
    })
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
  })
  afterAll(async () => { await gateway?.close() })

  it('beyond the limit: 503 queue_full, nothing stored; what cannot be sent in time ends failed `expired`', async () => {
    const to = '15552230001'
    const accepted = []
    for (let index = 0; index < 3; index++) accepted.push(await handOver(gateway, workspace, { to, body: `m${index}` }))
    expect(accepted.map(response => response.statusCode)).toEqual([202, 202, 202])
    const refused = await handOver(gateway, workspace, { to, body: 'one too many' })
    expect(refused.statusCode).toBe(503)
    expect(refused.json()).toMatchObject({ ok: false, code: 'queue_full' })
    expect((await gateway.app.messages.list(workspace.workspaceId, { limit: 10 }))).toHaveLength(3)

    const [first, ...later] = await Promise.all(accepted.map(async response => await settled(gateway, response.json().id)))
    expect(first.status).toBe('sent')
    for (const record of later) expect(record).toMatchObject({ status: 'failed', errorCode: 'expired', attempts: 0 })
    expect(gateway.emulator.sentMessages.filter(sent => sent.to === to)).toHaveLength(1)

    // the queue emptied: hand-overs are taken again once the count is read afresh
    const again = await waitFor(async () => {
      const response = await handOver(gateway, workspace, { to: '15552230002' })
      return response.statusCode === 202 ? response : undefined
    }, { timeoutMs: 5000, intervalMs: 300, what: 'a hand-over accepted again' })
    expect((await settled(gateway, again.json().id)).status).toBe('sent')
  })

  it('a number whose drain another process holds is left to it; a record older than QUEUE_MAX_AGE_MS when leased ends `expired`, unsent', async () => {
    const { db } = gateway.app.database
    const drainers = async () => Number(rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from job_groups`))[0].n)
    await waitFor(async () => await drainers() === 0, { what: 'the earlier drain to end' })
    await db.execute(sql`insert into job_groups (name, group_key, holder, lease_expires_at) values ('number-drains', '106540352242922', 'dsp_elsewhere', now() + interval '1 hour')`)
    const to = '15552230003'
    const response = await handOver(gateway, workspace, { to })
    expect(response.statusCode).toBe(202)
    await new Promise(resolve => setTimeout(resolve, 2500))
    expect(await gateway.app.messages.get(response.json().id)).toMatchObject({ status: 'queued' })
    await db.execute(sql`delete from job_groups where holder = 'dsp_elsewhere'`)
    expect(await settled(gateway, response.json().id)).toMatchObject({ status: 'failed', errorCode: 'expired', attempts: 0 })
    expect(gateway.emulator.sentMessages.filter(sent => sent.to === to)).toHaveLength(0)
  })
})
