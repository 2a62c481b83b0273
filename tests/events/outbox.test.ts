import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { DELIVERY_QUEUE, emitEvents } from '../../src/events/outbox.js'
import { jobSql } from '../../src/work/jobs.js'
import { useTestRuntime } from '../helpers/runtime.js'

const runtime = useTestRuntime()

// A statement takes at most 65,535 parameters: an intake batch (256 deliveries of up to hundreds of
// statuses each) emits more events than that would allow at one parameter per column.
describe('the transactional outbox at the size of a large intake batch', () => {
  it('writes a delivery and its job for each of 12,000 events in one transaction, and none for a workspace without endpoints', async () => {
    const { stores, cipher, database } = runtime.current
    const subscribed = await stores.workspaces.create('subscribed', 'growth')
    const quiet = await stores.workspaces.create('quiet', 'growth')
    await stores.webhooks.addEndpoint({ workspaceId: subscribed.id, url: 'https://hooks.example.com/in', events: ['message.delivered'], secret: cipher.encrypt('whsec_dGVzdA==') })
    const events = (workspaceId: string) => Array.from({ length: 12_000 }, (_, index) => ({ workspaceId, type: 'message.delivered' as const, data: { index } }))

    const ids = await database.db.transaction(async tx => [...await emitEvents(tx, events(subscribed.id)), ...await emitEvents(tx, events(quiet.id))])

    expect(ids).toHaveLength(12_000)
    const [row] = rowsOf<{ deliveries: number, jobs: number, unmatched: number }>(await database.db.execute(sql`select
      (select count(*)::int from webhook_deliveries where workspace_id = ${subscribed.id}) as deliveries,
      (select count(*)::int from jobs where queue = ${DELIVERY_QUEUE}) as jobs,
      (select count(*)::int from jobs j where j.queue = ${DELIVERY_QUEUE} and not exists (select 1 from webhook_deliveries d where d.id = convert_from(j.payload, 'UTF8'))) as unmatched`))
    expect(row).toEqual({ deliveries: 12_000, jobs: 12_000, unmatched: 0 })
    const bodies = await stores.webhooks.deliveries(subscribed.id, { limit: 3 })
    expect(bodies.map(delivery => JSON.parse(delivery.body).type)).toEqual(['message.delivered', 'message.delivered', 'message.delivered'])
  })

  it('enqueues 20,000 jobs in one call, in the given order, bytes intact', async () => {
    const { database } = runtime.current
    const payloads = Array.from({ length: 20_000 }, (_, index) => Buffer.from([index % 256, 0, 0xff, index >> 8]))
    const ids = await jobSql.enqueue(database.db, payloads.map(payload => ({ queue: 'large-enqueue', payload })))
    expect(ids).toHaveLength(20_000)
    const stored = rowsOf<{ id: string | number, payload: Uint8Array }>(await database.db.execute(sql`select id, payload from jobs where queue = 'large-enqueue' order by id`))
    expect(stored.map(row => Number(row.id))).toEqual(ids)
    expect(stored.every((row, index) => Buffer.from(row.payload).equals(payloads[index]))).toBe(true)
  })
})
