import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresStore, type RunningServer, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { appliedJobIds, inboxState, postAll, seedDeliveries, startLoggedServer } from './inbox-processes.js'

const url = process.env.TEST_DATABASE_URL
const DELIVERIES = 400

describe(`webhook inbox shared by two processes (${url ? 'PostgreSQL' : 'PostgreSQL, skipped: set TEST_DATABASE_URL'})`, () => {
  let store: ServerStore
  const servers: RunningServer[] = []
  beforeAll(async () => { if (url) store = await postgresStore(url) })
  afterAll(async () => {
    await Promise.all(servers.map(async server => await server.stop()))
    await store?.close()
  })

  it.skipIf(!url)('applies each delivery in one process only, and every event once, when each delivery reaches both processes', async () => {
    const { bodies } = await seedDeliveries(store, DELIVERIES, 3)
    servers.push(await startLoggedServer(store), await startLoggedServer(store))
    // the upstream delivers each body twice (at least once), here once to each process, at the same time
    const [a, b] = servers.map(server => server.url)
    const answers = await Promise.all([postAll([a, b], bodies, 16), postAll([b, a], bodies, 16)])
    expect(answers.flat().filter(answer => answer !== 200)).toEqual([])
    await waitFor(async () => (await inboxState(store)).jobs.length === 0, { timeoutMs: 30_000, what: 'the shared inbox drained' })
    const [first, second] = servers.map(server => appliedJobIds(server.output()))
    expect(first.length).toBeGreaterThan(0)
    expect(second.length).toBeGreaterThan(0)
    // the two logs together name each delivery exactly once
    expect([...first, ...second].sort((a, b) => a - b)).toEqual([...new Set([...first, ...second])].sort((a, b) => a - b))
    expect(first.length + second.length).toBe(2 * DELIVERIES)
    expect(await inboxState(store)).toEqual({ jobs: [], dead: 0, events: DELIVERIES * 3, inbound: DELIVERIES, delivered: DELIVERIES })
  })
})
