import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/wait.js'
import { handOver } from '../queue/helpers.js'
import { acceptedIds, unlessFailing, useFaultyGateway } from './helpers.js'

// A queued send that went out while the database was away: its outcome and its job's end could not
// be written. Both land once the database answers (CONTRACT.md 12), well before the job's lease
// would run out and offer it again.
const LEASE_MS = 15_000

describe.runIf(process.env.TEST_DATABASE_URL)('foul weather: a queued send\'s outcome written during an outage (PostgreSQL)', () => {
  const ctx = useFaultyGateway({ env: { THROUGHPUT_MPS: '20', DISPATCHER_LEASE_MS: String(LEASE_MS) } })
  let direct: postgres.Sql
  beforeAll(() => { direct = postgres(ctx.gateway.database.url, { max: 2, onnotice: () => {} }) })
  afterAll(async () => { await direct.end({ timeout: 1 }) })

  it('is completed when the database returns: the record sent, its job gone, sent once, not left sending', async () => {
    const { gateway, workspace } = ctx
    const to = '15552720001'
    gateway.emulator.setFaults({ recipient: to }, { latencyMs: 1500 })
    const requests = gateway.emulator.requests.length
    const answer = await handOver(gateway, workspace, { to })
    expect(answer.statusCode).toBe(202)
    const id = answer.json().id as string
    // the send is with the upstream: the database goes away before its outcome and its job's end are written
    await waitFor(async () => gateway.emulator.requests.slice(requests).some(request => request.path.endsWith('/messages')), { what: 'the upstream call' })
    gateway.databaseProxy!.cut()
    await new Promise(resolve => setTimeout(resolve, 3000))
    gateway.databaseProxy!.heal()
    const healed = Date.now()
    let last: unknown
    await waitFor(async () => {
      const rows = await unlessFailing(async () => await direct<Array<{ status: string, jobs: number }>>`select (select status from messages where id = ${id}) as status, (select count(*)::int from jobs where payload = ${Buffer.from(id)}) as jobs`)
      last = rows?.[0]
      // the status webhooks (redelivered once the database is back) may have moved it on already
      return rows !== undefined && ['sent', 'delivered', 'read'].includes(rows[0].status) && rows[0].jobs === 0
    }, { timeoutMs: LEASE_MS, what: 'the record sent and its job finished' }).catch((error: Error) => { throw new Error(`${error.message}: last seen ${JSON.stringify(last)}`) })
    expect(Date.now() - healed).toBeLessThan(5000)
    expect(acceptedIds(gateway).filter(accepted => accepted === id)).toHaveLength(1)
  })
})
