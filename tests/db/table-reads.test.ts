import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'

const SEEDED = 5000
const SENDS = 60

async function settle (): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, 1500))
}

// A statement that finds its rows by joining a list to a table may be planned as a read of the whole
// table once the table holds a few thousand rows: fast in a test, a full scan per batch in
// production. Sends, their status webhooks and their events run here over tables holding SEEDED
// rows each, and PostgreSQL's own counters show how many rows whole-table reads returned.
describe.runIf(process.env.TEST_DATABASE_URL)('hot statements find their rows through indexes (PostgreSQL)', () => {
  /**
   * A gateway of its own for the enclosing describe (each test here needs a fresh database: one reads
   * tables planned while empty, the other seeds the same rows), with an endpoint receiving its events.
   */
  function useSeedableGateway () {
    let receiver: Receiver
    let endpointId: string
    // registered before useGateway, so that it runs after the gateway closed
    afterAll(async () => { await receiver?.close() })
    const ctx = useGateway({
      env: { WEBHOOKS_ALLOW_PRIVATE: 'true' },
      setup: async gateway => {
        receiver = await startReceiver()
        endpointId = (await subscribe(gateway.app, ctx.workspace.workspaceId, receiver.url)).id
      }
    })

    async function seed (): Promise<void> {
      const { db } = ctx.gateway.app.database
      const numberId = defaultAccount().phoneNumbers[0].id
      await db.execute(sql`insert into messages (id, workspace_id, phone_number_id, recipient, type, payload, status, wamid, attempts)
        select 'msg_seed' || n, ${ctx.workspace.workspaceId}, ${numberId}, '15550001111', 'text', '{}', 'read', 'wamid.seed' || n, 1
        from generate_series(1, ${SEEDED}) as n`)
      await db.execute(sql`insert into webhook_deliveries (id, endpoint_id, workspace_id, type, webhook_id, body, status, attempts, delivered_at)
        select 'whd_seed' || n, ${endpointId}, ${ctx.workspace.workspaceId}, 'message.read', 'whmsg_seed' || n, '{}', 'delivered', 1, now()
        from generate_series(1, ${SEEDED}) as n`)
    }

    /** SENDS sends, their sent, delivered and read webhooks, and their events, all delivered. */
    async function sendAndDeliver (round: number): Promise<void> {
      const before = receiver.received.length
      const answers = await Promise.all(Array.from({ length: SENDS }, async (_, index) => await ctx.gateway.app.inject({
        method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to: `1555${round}20${String(index).padStart(4, '0')}`, body: 'reads' }
      })))
      expect(answers.map(answer => answer.statusCode)).toEqual(answers.map(() => 200))
      await waitFor(async () => receiver.received.length >= before + SENDS * 3, { what: 'every event delivered', timeoutMs: 20_000 })
      await ctx.gateway.emulator.idle()
      await waitFor(async () => (await ctx.gateway.app.webhooks.deliveries(ctx.workspace.workspaceId, { status: 'pending' })).length === 0, { what: 'outbox drained' })
    }

    /**
     * The counters from zero, once what came before is counted: each backend reports its counters
     * within a second of going idle, so the reads of the rounds before the seed (whole tables of a
     * hundred rows, planned for the table as it was behind a pooler) would otherwise land after the reset.
     */
    async function resetCounters (): Promise<void> {
      await settle()
      await ctx.gateway.app.database.db.execute(sql`select pg_stat_reset()`)
    }

    async function wholeTableReads (): Promise<Record<string, boolean>> {
      await settle()
      const reads = rowsOf<{ relname: string, seq_tup_read: number }>(await ctx.gateway.app.database.db.execute(sql`
        select relname, seq_tup_read::int from pg_stat_user_tables where relname in ('messages', 'webhook_deliveries')`))
      return Object.fromEntries(reads.map(row => [row.relname, row.seq_tup_read >= SEEDED]))
    }

    return { ctx, seed, sendAndDeliver, resetCounters, wholeTableReads }
  }

  describe('on a gateway of its own', () => {
    const { ctx, seed, sendAndDeliver, resetCounters, wholeTableReads } = useSeedableGateway()

    it('with statistics taken after the tables filled', async () => {
      await seed()
      // as autovacuum leaves tables after such a load
      await ctx.gateway.app.database.db.execute(sql`analyze`)
      await resetCounters()
      await sendAndDeliver(1)
      expect(await wholeTableReads()).toEqual({ messages: false, webhook_deliveries: false })
    })
  })

  // Prepared statements keep the plan PostgreSQL chose for them (db/prepared.ts) until the table's
  // statistics change: a plan chosen while a table was nearly empty must still find rows by index
  // once it is full and autovacuum has not yet analysed it.
  describe('on another gateway of its own', () => {
    const { ctx, seed, sendAndDeliver, resetCounters, wholeTableReads } = useSeedableGateway()

    it('with plans made while the tables were nearly empty', async () => {
      await sendAndDeliver(1)
      await sendAndDeliver(2)
      await seed()
      await resetCounters()
      await sendAndDeliver(3)
      expect(await wholeTableReads()).toEqual({ messages: false, webhook_deliveries: false })
    })
  })
})
