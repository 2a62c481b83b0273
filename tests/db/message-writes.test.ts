import { eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { messages } from '../../db/schema.js'
import { newId } from '../../src/store/ids.js'
import { useTestRuntime } from '../helpers/runtime.js'

/** The send path's two writes, shared by concurrent sends (group commit), on this run's database backend. */
describe('message records written by concurrent sends', () => {
  const runtime = useTestRuntime()
  let workspaceId: string

  beforeAll(async () => {
    workspaceId = (await runtime.current.stores.workspaces.create('group commit', 'scale')).id
  })

  const pending = (n: number) => ({
    id: newId('msg'),
    workspaceId,
    apiKeyId: null,
    phoneNumberId: '106540352242922',
    recipient: `1555000${String(n).padStart(4, '0')}`,
    type: 'text',
    payload: { messaging_product: 'whatsapp', to: `1555000${n}`, text: { body: `héllo ✓ "${n}"`, preview_url: n % 2 === 0 }, list: [n, null] },
    dispatcherId: 'proc_test'
  })
  const createAll = async (count: number) => await Promise.all(Array.from({ length: count }, async (_, n) => (await runtime.current.stores.messages.create(pending(n))).record))
  const row = async (id: string) => (await runtime.current.stores.messages.get(id))!

  it('creates 200 records at once and ends each sent or failed as its own call said', async () => {
    const inputs = Array.from({ length: 200 }, (_, n) => pending(n))
    const created = await Promise.all(inputs.map(async input => (await runtime.current.stores.messages.create(input)).record))
    created.forEach((record, n) => {
      expect(record).toMatchObject({ ...inputs[n], status: 'pending', wamid: null, attempts: 0 })
      expect(record.createdAt).toBeInstanceOf(Date)
    })

    const before = Date.now()
    await Promise.all(created.map(async (record, n) => n % 3 === 0
      ? await runtime.current.stores.messages.markFailed(record.id, { errorCode: `code_${n}`, errorText: `failure ${n}`, attempts: n % 5 + 1 })
      : await runtime.current.stores.messages.markSent(record.id, { wamid: `wamid.${n}`, attempts: n % 5 + 1 })))
    const after = Date.now()

    for (const [n, record] of created.entries()) {
      const stored = await row(record.id)
      expect(stored).toMatchObject(n % 3 === 0
        ? { status: 'failed', errorCode: `code_${n}`, errorText: `failure ${n}`, wamid: null, attempts: n % 5 + 1 }
        : { status: 'sent', errorCode: null, errorText: null, wamid: `wamid.${n}`, attempts: n % 5 + 1 })
      expect(stored.payload).toEqual(inputs[n].payload)
      expect(stored.updatedAt.getTime()).toBeGreaterThanOrEqual(before)
      expect(stored.updatedAt.getTime()).toBeLessThanOrEqual(after)
    }
  })

  it('never moves back a record a webhook moved on, turns an interrupted one sent, and fails only open records', async () => {
    const [delivered, interrupted, sent, interruptedThenFailed, ...others] = await createAll(24)
    await runtime.current.stores.statusEvents.recordAll([{ wamid: 'wamid.delivered', status: 'delivered', phoneNumberId: delivered.phoneNumberId, recordId: delivered.id, upstreamTimestamp: new Date(), payload: {} }])
    for (const record of [interrupted, interruptedThenFailed]) {
      await runtime.current.database.db.update(messages).set({ status: 'failed', errorCode: 'interrupted', errorText: 'the process stopped' }).where(eq(messages.id, record.id))
    }
    await runtime.current.stores.messages.markSent(sent.id, { wamid: 'wamid.sent', attempts: 1 })

    await Promise.all([
      runtime.current.stores.messages.markSent(delivered.id, { wamid: 'wamid.delivered', attempts: 2 }),
      runtime.current.stores.messages.markSent(interrupted.id, { wamid: 'wamid.interrupted', attempts: 1 }),
      runtime.current.stores.messages.markFailed(sent.id, { errorCode: 'upstream_timeout', errorText: 'late', attempts: 3 }),
      runtime.current.stores.messages.markFailed(interruptedThenFailed.id, { errorCode: '131026', errorText: 'undeliverable', attempts: 1 }),
      ...others.map(async record => await runtime.current.stores.messages.markSent(record.id, { wamid: `wamid.${record.id}`, attempts: 1 }))
    ])

    expect(await row(delivered.id)).toMatchObject({ status: 'delivered', wamid: 'wamid.delivered', attempts: 2 })
    expect(await row(interrupted.id)).toMatchObject({ status: 'sent', wamid: 'wamid.interrupted', errorCode: null, errorText: null })
    expect(await row(sent.id)).toMatchObject({ status: 'sent', wamid: 'wamid.sent', errorCode: null, attempts: 1 })
    expect(await row(interruptedThenFailed.id)).toMatchObject({ status: 'failed', errorCode: '131026', errorText: 'undeliverable' })
    for (const record of others) expect(await row(record.id)).toMatchObject({ status: 'sent', wamid: `wamid.${record.id}` })
  })

  it('fails only the call whose row cannot be written, not the others sharing its statement', async () => {
    const [existing] = await createAll(1)
    const inputs = Array.from({ length: 30 }, (_, n) => n === 11 ? { ...pending(n), id: existing.id } : pending(n))
    const created = await Promise.allSettled(inputs.map(async input => (await runtime.current.stores.messages.create(input)).record))
    expect(created.filter(result => result.status === 'rejected')).toHaveLength(1)
    expect(created[11].status).toBe('rejected')
    const records = created.flatMap(result => result.status === 'fulfilled' ? [result.value] : [])
    for (const record of records) expect(await row(record.id)).toMatchObject({ status: 'pending' })

    await runtime.current.stores.messages.markSent(existing.id, { wamid: 'wamid.taken', attempts: 1 })
    const sent = await Promise.allSettled(records.map(async (record, n) =>
      await runtime.current.stores.messages.markSent(record.id, { wamid: n === 5 ? 'wamid.taken' : `wamid.${record.id}`, attempts: 1 })))
    expect(sent.map(result => result.status)).toEqual(records.map((_, n) => n === 5 ? 'rejected' : 'fulfilled'))
    for (const [n, record] of records.entries()) {
      expect(await row(record.id)).toMatchObject(n === 5 ? { status: 'pending', wamid: null } : { status: 'sent', wamid: `wamid.${record.id}` })
    }
  })
})
