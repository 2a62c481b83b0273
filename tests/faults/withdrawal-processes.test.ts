import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { testConfig } from '../helpers/config.js'
import { freePort } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { handOver } from '../queue/helpers.js'
import { acceptedIds, useFaultyGateway } from './helpers.js'

const COMMIT = /commit/i
const LEASE_MS = '1000'

type App = Awaited<ReturnType<typeof buildApp>>

/**
 * A queued hand-over whose commit's reply is lost answers 503 "nothing was sent", and its record is
 * withdrawn (src/dispatch/withdrawals.ts). The database is the truth of that for every process: no
 * other process sends the record while its creator cannot reach the database, nor after the creator
 * is gone before the withdrawal landed (CONTRACT.md 9: each queued send by exactly one process; 12).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('foul weather: a withdrawal reaches every process (PostgreSQL)', () => {
  // the creator reaches the database through the proxy; the others go straight to it
  const ctx = useFaultyGateway({ env: { THROUGHPUT_MPS: '20', DISPATCHER_LEASE_MS: LEASE_MS, SHUTDOWN_GRACE_MS: '500' } })
  const proxy = () => ctx.gateway.databaseProxy!
  let direct: postgres.Sql
  const others: App[] = []
  beforeAll(() => { direct = postgres(ctx.gateway.database.url, { max: 2, onnotice: () => {} }) })
  afterAll(async () => {
    for (const app of others) await app.close()
    await direct.end({ timeout: 1 })
  })

  /** Another gateway process on the same database, past the proxy. */
  async function another (): Promise<App> {
    const port = await freePort()
    const app = await buildApp({
      config: testConfig({ DATABASE_URL: ctx.gateway.database.url, PORT: String(port), GRAPH_API_URL: ctx.gateway.emulator.url, APP_SECRET: ctx.gateway.emulator.appSecret, TEMPLATE_SYNC_INTERVAL_MS: '0', THROUGHPUT_MPS: '20', DISPATCHER_LEASE_MS: LEASE_MS }),
      logger: false
    })
    await app.listen({ port, host: '127.0.0.1' })
    others.push(app)
    return app
  }

  async function recordTo (to: string) {
    const [row] = await direct<Array<{ id: string, status: string, error_code: string | null }>>`select id, status, error_code from messages where recipient = ${to}`
    return row
  }

  /** A hand-over to the creator whose commit lands but whose reply is lost; the creator is left cut off from the database. */
  async function handOverUnacknowledged (to: string): Promise<string> {
    proxy().cut()
    await new Promise(resolve => setTimeout(resolve, 100))
    proxy().heal()
    await waitFor(async () => (await ctx.gateway.app.inject({ url: '/api/messages.php?limit=1', headers: { authorization: ctx.workspace.authorization } })).statusCode === 200, { what: 'reads again' })
    proxy().loseReply(/insert into messages/i, COMMIT)
    const answer = handOver(ctx.gateway, ctx.workspace, { to })
    const row = await waitFor(async () => { const found = await recordTo(to); return found?.status === 'queued' && found }, { what: 'the record queued in the database' })
    await new Promise(resolve => setTimeout(resolve, 200))
    proxy().cut()
    expect((await answer).statusCode).toBe(503)
    return row.id
  }

  const sentTo = (to: string) => ctx.gateway.emulator.sentMessages.filter(sent => sent.to === to).length

  it('another process does not send it while its creator cannot reach the database; it ends withdrawn', async () => {
    await another()
    const to = '15552720001'
    const id = await handOverUnacknowledged(to)
    // the creator stays cut off for a few drain leases: the other process has the number's queue meanwhile
    await new Promise(resolve => setTimeout(resolve, 4 * Number(LEASE_MS)))
    expect(sentTo(to)).toBe(0)
    proxy().heal()
    const withdrawn = await waitFor(async () => { const row = await recordTo(to); return row?.status === 'failed' && row }, { timeoutMs: 15_000, what: 'the record withdrawn' })
    expect(withdrawn).toMatchObject({ id, error_code: 'database_unavailable' })
    expect(sentTo(to)).toBe(0)
    expect(acceptedIds(ctx.gateway)).not.toContain(id)
  })

  it('a creator gone before its withdrawal landed: no process sends the record later; it ends withdrawn', async () => {
    const to = '15552720002'
    const id = await handOverUnacknowledged(to)
    // the creator stops while the database is still away from it: its withdrawal never lands
    await ctx.gateway.app.close()
    await another()
    const settled = await waitFor(async () => { const row = await recordTo(to); return row && row.status !== 'queued' && row.status !== 'sending' && row }, { timeoutMs: 15_000, what: 'the record settled' })
    expect(settled).toMatchObject({ id, status: 'failed', error_code: 'database_unavailable' })
    expect(sentTo(to)).toBe(0)
  })
})
