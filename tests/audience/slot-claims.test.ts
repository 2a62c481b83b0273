import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { SlotRefused, type SlotClaim } from '../../src/store/messaging-limit.js'
import { newId } from '../../src/store/ids.js'
import { useTestRuntime } from '../helpers/runtime.js'

const NUMBER = '106540352242922'
const DAY = 24 * 60 * 60_000

/**
 * CONTRACT.md 14, the messaging limit taken in the statement that writes a send's log record
 * (migration 0018): concurrent sends share one insert, and their claims are decided together,
 * as one by one they would be.
 */
describe('audience: messaging-limit slots claimed by the log record\'s insert', () => {
  const runtime = useTestRuntime()
  let workspaceId: string

  beforeAll(async () => {
    workspaceId = (await runtime.current.stores.workspaces.create('claims', 'scale')).id
  })

  const claim = (wabaId: string, limit: number | null): SlotClaim => ({ wabaId, limit, windowSince: new Date(Date.now() - DAY) })
  const pending = (recipient: string) => ({ id: newId('msg'), workspaceId, apiKeyId: null, phoneNumberId: NUMBER, recipient, type: 'template', payload: { to: recipient }, dispatcherId: 'proc_test' })
  /** every send at once: they go in one batch */
  const sendAll = async (wabaId: string, limit: number | null, recipients: string[]) => await Promise.all(recipients.map(async recipient => {
    const own = claim(wabaId, limit)
    const message = pending(recipient)
    try {
      const { record, slot } = await runtime.current.stores.messages.create(message, { claim: own })
      return { recipient, id: record.id, slot }
    } catch (error) {
      if (error instanceof SlotRefused) return { recipient, id: message.id, refused: error.nextSlotAt }
      throw error
    }
  }))
  const written = async (ids: string[]) => rowsOf<{ id: string }>(await runtime.current.database.db.execute(sql`select id from messages where id in ${ids}`)).map(row => row.id)
  const counted = async (wabaId: string) => ({
    used: rowsOf<{ used: number }>(await runtime.current.database.db.execute(sql`select coalesce(sum(used), 0)::int as used from messaging_limit_counts where waba_id = ${wabaId}`))[0].used,
    rows: rowsOf<{ recipient: string }>(await runtime.current.database.db.execute(sql`select recipient from messaging_limit_recipients where waba_id = ${wabaId} order by recipient`)).map(row => row.recipient)
  })

  it('writes the records whose slot was taken, refuses the rest with when a slot frees, and counts each recipient once', async () => {
    const results = await sendAll('waba_a', 3, ['15550000005', '15550000001', '15550000004', '15550000002', '15550000003'])
    const taken = results.filter(result => !('refused' in result))
    const refused = results.filter(result => 'refused' in result)
    expect(taken.map(result => result.recipient).sort()).toEqual(['15550000001', '15550000002', '15550000003'])
    expect(refused).toHaveLength(2)
    for (const result of refused) expect((result as { refused: Date }).refused.getTime()).toBeGreaterThan(Date.now() + DAY - 60_000)
    for (const result of taken) expect(result.slot).toMatchObject({ wabaId: 'waba_a', recipient: result.recipient })
    expect((await written(results.map(result => result.id))).sort()).toEqual(taken.map(result => result.id).sort())
    expect(await counted('waba_a')).toEqual({ used: 3, rows: ['15550000001', '15550000002', '15550000003'] })

    // a recipient counted already costs nothing, even at the limit; a new one is refused
    const again = await sendAll('waba_a', 3, ['15550000002', '15550000009'])
    expect(again[0]).toMatchObject({ recipient: '15550000002', slot: undefined })
    expect(again[0]).not.toHaveProperty('refused')
    expect(again[1]).toHaveProperty('refused')
    expect(await counted('waba_a')).toEqual({ used: 3, rows: ['15550000001', '15550000002', '15550000003'] })
  })

  it('a recipient twice in a batch takes one slot, held by one record; one who wrote in the last 24 h is free', async () => {
    await runtime.current.database.db.execute(sql`insert into inbound_messages (id, workspace_id, phone_number_id, wamid, "from", type, payload, received_at)
      values ('in_claims', ${workspaceId}, ${NUMBER}, 'wamid.in_claims', '15550000077', 'text', '{}'::jsonb, now() - interval '1 hour')`)
    const results = await sendAll('waba_b', 2, ['15550000066', '15550000066', '15550000077', '15550000088'])
    expect(results.filter(result => 'refused' in result)).toHaveLength(0)
    expect(results.filter(result => result.recipient === '15550000066' && result.slot)).toHaveLength(1)
    expect(results.find(result => result.recipient === '15550000077')?.slot).toBeUndefined()
    expect(await counted('waba_b')).toEqual({ used: 2, rows: ['15550000066', '15550000088'] })
    // no limit: every new recipient counted
    const unlimited = await sendAll('waba_c', null, ['15550000101', '15550000102'])
    expect(unlimited.every(result => result.slot)).toBe(true)
    expect((await counted('waba_c')).used).toBe(2)
  })

  it('a recipient whose count expired is counted again without adding a row, and expired rows free slots at the limit', async () => {
    await runtime.current.database.db.execute(sql`insert into messaging_limit_recipients (waba_id, recipient, last_at) values
      ('waba_d', '15550000201', now() - interval '25 hours'), ('waba_d', '15550000202', now() - interval '26 hours'), ('waba_d', '15550000203', now() - interval '1 hour')`)
    await runtime.current.database.db.execute(sql`insert into messaging_limit_counts (waba_id, used) values ('waba_d', 3)`)
    // the limit is 3 and the count says 3: the two expired rows go, so two of the three new ones are taken
    const results = await sendAll('waba_d', 3, ['15550000201', '15550000204', '15550000205'])
    expect(results.filter(result => 'refused' in result).map(result => result.recipient)).toEqual(['15550000205'])
    expect(await counted('waba_d')).toEqual({ used: 3, rows: ['15550000201', '15550000203', '15550000204'] })
  })
})
