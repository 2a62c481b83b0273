import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { useTestRuntime } from '../helpers/runtime.js'

/**
 * Issue 26, migration 0019: a claim looks its recipient up by the primary key whatever plan its
 * connection cached. A generic plan made while messaging_limit_recipients is small (no statistics
 * yet: a new database, and PGlite never analyzes) could serve the "counted in the window already?"
 * lookup from messaging_limit_recipients_window and read the WABA's whole window for every claim:
 * the send path slowed with every distinct recipient (bench/RESULTS.md, "Audience rules").
 */
describe('audience: the messaging-limit claim reads the primary key, not the window', () => {
  const runtime = useTestRuntime()

  it('takes no scan of messaging_limit_recipients_window under a generic plan, recipients new or counted', async () => {
    const { db } = runtime.current.database
    // a small table, never analyzed: what a generic plan is made from on a new database. Counted
    // by one statement, as a batch of sends counts its recipients: one last_at, which the window
    // index keeps deduplicated, small, cheaper to the planner than the primary key
    await db.execute(sql`insert into messaging_limit_recipients (waba_id, recipient, last_at)
      select 'waba_plan', '1777' || lpad(n::text, 7, '0'), now() from generate_series(1, 500) as n`)
    await db.execute(sql`insert into messaging_limit_counts (waba_id, used) values ('waba_plan', 500)`)
    const scans = await db.transaction(async tx => {
      // this connection's index scans not yet reported (its own counters: no statistics flush needed)
      const scanned = async () => rowsOf<{ window: number, key: number }>(await tx.execute(sql`select pg_stat_get_xact_numscans('messaging_limit_recipients_window'::regclass)::int as window,
        pg_stat_get_xact_numscans('messaging_limit_recipients_waba_id_recipient_pk'::regclass)::int as key`))[0]
      const before = await scanned()
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`)
      for (let index = 0; index < 20; index++) {
        // one counted already (its time moves on), one new
        const [counted] = rowsOf<{ taken: boolean }>(await tx.execute(sql`select taken from messaging_limit_claim('waba_plan', ${`1777${String(index + 1).padStart(7, '0')}`}, null, false)`))
        const [fresh] = rowsOf<{ taken: boolean }>(await tx.execute(sql`select taken from messaging_limit_claim('waba_plan', ${`1888${String(index).padStart(7, '0')}`}, null, false)`))
        expect([counted.taken, fresh.taken]).toEqual([true, true])
      }
      const after = await scanned()
      return { window: Number(after.window) - Number(before.window), key: Number(after.key) - Number(before.key) }
    })
    expect(scans.window).toBe(0)
    expect(scans.key).toBeGreaterThan(0)
    const [count] = rowsOf<{ used: number }>(await db.execute(sql`select used from messaging_limit_counts where waba_id = 'waba_plan'`))
    expect(count.used).toBe(520)
  })
})
