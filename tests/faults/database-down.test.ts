import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { jobSql } from '../../src/work/jobs.js'
import { Browser, userIn } from '../dashboard/helpers.js'
import { send } from '../helpers/send.js'
import { waitFor } from '../helpers/wait.js'
import { postWebhook } from '../helpers/webhook.js'
import { handOver } from '../queue/helpers.js'
import { envelope, messagesValue, status } from '../webhooks/helpers.js'
import { acceptedIds, timed, unlessFailing, useFaultyGateway, type FaultyGateway } from './helpers.js'

// The contract's bound is 5 s; the mechanism's own figures are 3 s (a statement's wait) and 0.5 s
// (a reconnect). The margin is for a loaded machine, not for the mechanism.
const BOUND_MS = 5000 + 2000
const SENT = ['sent', 'delivered', 'read']

// Only PostgreSQL can be taken away from a running gateway: PGlite lives in its process.
describe.runIf(process.env.TEST_DATABASE_URL)('foul weather: the database unavailable (PostgreSQL)', () => {
  const ctx = useFaultyGateway({ env: { THROUGHPUT_MPS: '4' } })
  const cut = () => ctx.gateway.databaseProxy!.cut()
  const heal = () => ctx.gateway.databaseProxy!.heal()

  async function webhook (gateway: FaultyGateway): Promise<number> {
    const raw = JSON.stringify(envelope('messages', messagesValue({ statuses: [status('wamid.while-down', 'delivered', '1795000000')] })))
    return (await postWebhook(gateway.url, raw, gateway.emulator.appSecret)).status
  }

  it('every route that needs it answers 503 database_unavailable with Retry-After within 5 s, then as usual within 5 s of its return', async () => {
    const { gateway, workspace } = ctx
    const browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
    const sent = await send(gateway, { to: '15552600001', body: 'Hello' }, { authorization: workspace.authorization })
    const id = sent.json().id as string
    const routes = {
      send: async () => await send(gateway, { to: '15552600002', body: 'Hello' }, { authorization: workspace.authorization }),
      read: async () => await gateway.app.inject({ url: `/api/messages.php?id=${id}`, headers: { authorization: workspace.authorization } }),
      page: async () => await browser.get('/dashboard/messages'),
      ready: async () => await gateway.app.inject('/readyz')
    }
    cut()
    try {
      // the key cache (900 ms) and the template cache may answer for a moment without the database
      await new Promise(resolve => setTimeout(resolve, 1000))
      for (const [name, route] of Object.entries(routes)) {
        const { ms, value: response } = await timed(route)
        expect({ name, status: response.statusCode }).toEqual({ name, status: 503 })
        expect(ms).toBeLessThan(BOUND_MS)
        if (name === 'page') expect(response.body).toContain('Temporarily unavailable')
        else if (name !== 'ready') expect(response.json()).toMatchObject({ ok: false, code: 'database_unavailable' })
        if (name !== 'ready') expect(response.headers['retry-after']).toBeDefined()
      }
      const { ms, value } = await timed(async () => await webhook(gateway))
      expect(value).toBe(503)
      expect(ms).toBeLessThan(BOUND_MS)
    } finally {
      heal()
    }
    const healed = Date.now()
    await waitFor(async () => {
      const answers = await Promise.all(Object.values(routes).map(async route => (await route()).statusCode))
      return answers.every(code => code === 200) && await webhook(gateway) === 200
    }, { timeoutMs: 15_000, what: 'every route answering as usual' })
    expect(Date.now() - healed).toBeLessThan(BOUND_MS)
  })

  it('once the upstream accepted, the client gets 200 with its id and wamid, and the record is written when the database answers again', async () => {
    const { gateway, workspace } = ctx
    const to = '15552600011'
    const key = 'foul-weather-truth-1'
    gateway.emulator.setFaults({ recipient: to }, { latencyMs: 1500 })
    const requests = gateway.emulator.requests.length
    const answer = send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization, headers: { 'idempotency-key': key } })
    // the send is with the upstream: now the database goes away, before its outcome can be written
    await waitFor(async () => gateway.emulator.requests.slice(requests).some(request => request.path.endsWith('/messages')), { what: 'the upstream call' })
    cut()
    let body: { ok: boolean, id: string, wamid: string, status: string }
    try {
      const response = await answer
      expect(response.statusCode).toBe(200)
      body = response.json()
      expect(body).toMatchObject({ ok: true, id: expect.stringMatching(/^msg_/), wamid: expect.stringMatching(/^wamid\./), status: 'sent' })
      // a retry with the same key cannot be answered without the database: 503, never a second send
      const retry = await send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization, headers: { 'idempotency-key': key } })
      expect(retry.statusCode).toBe(503)
    } finally {
      heal()
    }
    const record = await waitFor(async () => { const found = await unlessFailing(async () => await gateway.app.messages.get(body.id)); return found && SENT.includes(found.status) && found }, { what: 'the outcome written' })
    expect(record.wamid).toBe(body.wamid)
    const replay = await waitFor(async () => {
      const response = await send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization, headers: { 'idempotency-key': key } })
      return response.statusCode === 200 && response
    }, { what: 'the replay' })
    expect(replay.json()).toEqual(body)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(acceptedIds(gateway).filter(accepted => accepted === body.id)).toHaveLength(1)
  })

  it('queued sends never end because the database blinked: each is sent once', async () => {
    const { gateway, workspace } = ctx
    const ids: string[] = []
    for (let index = 0; index < 10; index++) ids.push((await handOver(gateway, workspace, { to: `155526200${String(index).padStart(2, '0')}` })).json().id)
    cut()
    await new Promise(resolve => setTimeout(resolve, 2500))
    heal()
    const records = await waitFor(async () => {
      const found = await unlessFailing(async () => await Promise.all(ids.map(async id => await gateway.app.messages.get(id))))
      return found?.every(record => record && !['queued', 'sending', 'pending'].includes(record.status)) && found
    }, { timeoutMs: 30_000, what: 'every queued send settled' })
    expect(records.map(record => record!.status).filter(state => !SENT.includes(state))).toEqual([])
    const accepted = acceptedIds(gateway)
    for (const id of ids) expect(accepted.filter(accept => accept === id)).toHaveLength(1)
  })

  it('a job that meets the database down keeps its attempts and never becomes a dead letter', async () => {
    const { gateway } = ctx
    const { db } = gateway.app.database
    const seen: number[] = []
    gateway.app.work.defineLeased('foul-weather-leased', { batch: 1, concurrency: 1, maxAttempts: 1, pollMs: 50 }, async job => {
      seen.push(job.attempts)
      if (seen.length === 1) {
        cut()
        setTimeout(heal, 1500)
      }
      await db.execute(sql`select 1`)
    })
    gateway.app.work.defineBatch('foul-weather-batch', { batch: 10, maxAttempts: 1, pollMs: 50 }, async (_jobs, tx) => {
      await tx.execute(sql`select 1`)
    })
    await waitFor(async () => await unlessFailing(async () => await gateway.app.work.enqueue([{ queue: 'foul-weather-leased', payload: 'x' }, { queue: 'foul-weather-batch', payload: 'y' }])), { what: 'the jobs enqueued' })
    gateway.app.work.wake('foul-weather-leased')
    await waitFor(async () => {
      const counts = await unlessFailing(async () => await Promise.all(['foul-weather-leased', 'foul-weather-batch'].map(async queue => await jobSql.counts(db, queue))))
      return counts?.every(count => count.ready + count.running + count.dead === 0)
    }, { timeoutMs: 20_000, what: 'both jobs done' })
    // with one attempt allowed, the blip would have made a dead letter: it cost nothing
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(new Set(seen)).toEqual(new Set([1]))
  })
})
