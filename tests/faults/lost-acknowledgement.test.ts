import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { send } from '../helpers/send.js'
import { waitFor } from '../helpers/wait.js'
import { handOver } from '../queue/helpers.js'
import { acceptedIds, useFaultyGateway } from './helpers.js'

// A write whose reply is lost: the database ran it (and committed) but the gateway never heard so,
// then the connection broke. The gateway can't know whether the record exists (CONTRACT.md 12).
// postgres.js sends a new statement's text first (Parse, Describe) and then runs it (Bind, Execute):
// the reply lost is the run's.
const RUN = /^B/
const COMMIT = /commit/i

describe.runIf(process.env.TEST_DATABASE_URL)('foul weather: a record write whose acknowledgement is lost (PostgreSQL)', () => {
  const ctx = useFaultyGateway({ env: { THROUGHPUT_MPS: '20' } })
  const proxy = () => ctx.gateway.databaseProxy!
  // straight to the database, past the proxy
  let direct: postgres.Sql
  beforeAll(() => { direct = postgres(ctx.gateway.database.url, { max: 2, onnotice: () => {} }) })
  afterAll(async () => { await direct.end({ timeout: 1 }) })

  async function recordTo (to: string) {
    const [row] = await direct<Array<{ id: string, status: string, error_code: string | null }>>`select id, status, error_code from messages where recipient like ${`%${to}`}`
    return row
  }
  const sentTo = (to: string) => ctx.gateway.emulator.sentMessages.filter(sent => String(sent.to).endsWith(to)).length

  /** The connections cut and made again, and the gateway reading again, before each fault is armed. */
  async function freshConnections (): Promise<void> {
    proxy().cut()
    await new Promise(resolve => setTimeout(resolve, 100))
    proxy().heal()
    await waitFor(async () => (await ctx.gateway.app.inject({ url: '/api/messages.php?limit=1', headers: { authorization: ctx.workspace.authorization } })).statusCode === 200, { what: 'reads again' })
  }

  /** Arms the lost reply, starts `request`, waits until the database has the record as `written`, then cuts and heals. */
  async function loseTheReply<T> (to: string, written: string, request: () => Promise<T>, arm: () => void): Promise<{ answer: T, id: string }> {
    await freshConnections()
    arm()
    const answer = request()
    const row = await waitFor(async () => { const found = await recordTo(to); return found?.status === written && found }, { what: `the record ${written} in the database` })
    await new Promise(resolve => setTimeout(resolve, 200))
    proxy().cut()
    const answered = await answer
    proxy().heal()
    return { answer: answered, id: row.id }
  }

  it('a synchronous send: 503 database_unavailable, and the record the database did write is withdrawn, never sent; the retry is sent once', async () => {
    const { gateway, workspace } = ctx
    const to = '15552710001'
    const { answer, id } = await loseTheReply(to, 'pending', async () => await send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization }),
      () => { proxy().loseReply(/insert into messages/i, RUN) })
    expect(answer.statusCode).toBe(503)
    expect(answer.json()).toMatchObject({ ok: false, code: 'database_unavailable' })
    expect(answer.headers['retry-after']).toBeDefined()
    const withdrawn = await waitFor(async () => { const row = await recordTo(to).catch(() => undefined); return row?.status === 'failed' && row }, { what: 'the record withdrawn' })
    expect(withdrawn).toMatchObject({ id, error_code: 'database_unavailable' })
    // the client retries the 503, as it says: one send in all
    const retry = await waitFor(async () => { const response = await send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization }); return response.statusCode === 200 && response }, { what: 'the retry' })
    expect(retry.json().id).not.toBe(id)
    expect(sentTo(to)).toBe(1)
    expect(acceptedIds(gateway)).not.toContain(id)
  })

  it('a queued hand-over whose commit is acknowledged to nobody: 503, and the queued record is withdrawn before any drain sends it', async () => {
    const { gateway, workspace } = ctx
    const to = '15552710002'
    const { answer, id } = await loseTheReply(to, 'queued', async () => await handOver(gateway, workspace, { to }),
      () => { proxy().loseReply(/insert into messages/i, COMMIT) })
    expect(answer.statusCode).toBe(503)
    expect(answer.json()).toMatchObject({ ok: false, code: 'database_unavailable' })
    const withdrawn = await waitFor(async () => { const row = await recordTo(to).catch(() => undefined); return row?.status === 'failed' && row }, { what: 'the record withdrawn' })
    expect(withdrawn).toMatchObject({ id, error_code: 'database_unavailable' })
    // its job finds it so and ends without a send
    await waitFor(async () => (await direct`select 1 from jobs where payload = ${Buffer.from(id)}`).length === 0, { what: 'its job finished' })
    expect(sentTo(to)).toBe(0)
  })

  it('a queued send whose claim is acknowledged to nobody takes it again as its own: sent once, not left sending', async () => {
    const { gateway, workspace } = ctx
    const to = '15552710003'
    const { answer, id } = await loseTheReply(to, 'sending', async () => await handOver(gateway, workspace, { to }),
      () => { proxy().loseReply(/status = 'sending'/i, RUN) })
    expect(answer.statusCode).toBe(202)
    const settled = await waitFor(async () => { const row = await recordTo(to).catch(() => undefined); return row && !['queued', 'sending'].includes(row.status) && row }, { timeoutMs: 20_000, what: 'the record settled' })
    expect(settled).toMatchObject({ id, status: 'sent' })
    expect(acceptedIds(gateway).filter(accepted => accepted === id)).toHaveLength(1)
  })
})
