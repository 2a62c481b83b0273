import type { FastifyInstance } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { dispatchers, messages } from '../../db/schema.js'
import { buildApp } from '../../src/app.js'
import { testConfig } from '../helpers/config.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { sendText } from './helpers.js'

const postgresUrl = process.env.TEST_DATABASE_URL

/** Several processes share one PostgreSQL database: each sweeps what dead processes left pending, never a live one's. */
describe.skipIf(!postgresUrl)('dispatcher leases: two gateway processes on one PostgreSQL database', () => {
  let second: FastifyInstance
  const ctx = useGateway({
    setup: async first => {
      first.emulator.setStatusOptions('global', { statuses: [] })
      // the other process renews and sweeps every 200 ms
      second = await buildApp({ config: testConfig({ DATABASE_URL: first.database.url, GRAPH_API_URL: first.emulator.url, DISPATCHER_LEASE_MS: '600' }), logger: false })
      await second.ready()
    }
  })
  // registered after useGateway, so that it runs before the first gateway closes
  afterAll(async () => { await second?.close() })

  let sequence = 0
  async function pendingRecord (dispatcherId: string | null, createdAt?: Date) {
    const record = (await ctx.gateway.app.messages.create({
      id: `msg_lease_test_${++sequence}`, workspaceId: ctx.workspace.workspaceId, apiKeyId: ctx.workspace.apiKeyId, phoneNumberId: '106540352242922', recipient: '15554000000', type: 'text', payload: {}, dispatcherId
    })).record
    if (createdAt) await ctx.gateway.app.database.db.update(messages).set({ createdAt }).where(eq(messages.id, record.id))
    return record.id
  }
  const statusOf = async (id: string) => (await ctx.gateway.app.messages.get(id))!

  it('a live process\'s records are left alone, also while its send takes seconds', async () => {
    const waiting = await pendingRecord(ctx.gateway.app.dispatcherId)
    const to = '15554000001'
    ctx.gateway.emulator.setFaults({ recipient: to }, { latencyMs: 2000 })
    const response = await sendText(ctx.gateway, ctx.workspace, to)
    expect(response.statusCode).toBe(200)
    expect((await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 10 })).find(record => record.recipient === to)).toMatchObject({ status: 'sent', errorCode: null })
    expect(await statusOf(waiting)).toMatchObject({ status: 'pending', errorCode: null })
  })

  it('records of a process whose lease expired, or that is unknown, become failed `interrupted`', async () => {
    await ctx.gateway.app.database.db.insert(dispatchers).values({ id: 'dsp_gone', leaseExpiresAt: new Date(Date.now() - 60_000) })
    const expired = await pendingRecord('dsp_gone')
    const unknown = await pendingRecord('dsp_never_registered')
    for (const id of [expired, unknown]) {
      await waitFor(async () => (await statusOf(id)).status === 'failed', { what: `${id} interrupted` })
      expect(await statusOf(id)).toMatchObject({ status: 'failed', errorCode: 'interrupted', errorText: expect.stringMatching(/may or may not have been sent/) })
    }
  })

  it('a record naming no process is given a lease\'s time to be claimed, then interrupted', async () => {
    const fresh = await pendingRecord(null)
    const old = await pendingRecord(null, new Date(Date.now() - 60_000))
    await waitFor(async () => (await statusOf(old)).status === 'failed', { what: 'the old unclaimed record interrupted' })
    expect(await statusOf(old)).toMatchObject({ errorCode: 'interrupted' })
    const seen = await statusOf(fresh)
    expect(seen.status === 'pending' || Date.now() - seen.createdAt.getTime() > 600).toBe(true)
  })

  it('a process that closes gives up its lease and fails what it still had pending', async () => {
    const id = second.dispatcherId
    const left = (await ctx.gateway.app.messages.create({
      id: 'msg_lease_test_left', workspaceId: ctx.workspace.workspaceId, apiKeyId: ctx.workspace.apiKeyId, phoneNumberId: '106540352242922', recipient: '15554000002', type: 'text', payload: {}, dispatcherId: id
    })).record
    await second.close()
    expect(await statusOf(left.id)).toMatchObject({ status: 'failed', errorCode: 'interrupted' })
    expect((await ctx.gateway.app.database.db.select().from(dispatchers)).map(row => row.id)).not.toContain(id)
  })
})
