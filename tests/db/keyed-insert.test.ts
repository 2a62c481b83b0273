import { beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/store/ids.js'
import { useTestRuntime } from '../helpers/runtime.js'

/** Records written with an Idempotency-Key share the group commit, and come back as drizzle maps them. */
describe('records created with an Idempotency-Key', () => {
  const runtime = useTestRuntime()
  let workspaceId: string

  beforeAll(async () => {
    workspaceId = (await runtime.current.stores.workspaces.create('keyed inserts', 'scale')).id
  })

  const pending = (n: number) => ({
    id: newId('msg'),
    workspaceId,
    apiKeyId: null,
    phoneNumberId: '106540352242922',
    recipient: `1555100${String(n).padStart(4, '0')}`,
    type: 'text',
    payload: { messaging_product: 'whatsapp', text: { body: `héllo "${n}"` }, list: [n, null] },
    dispatcherId: 'proc_test',
    clientReference: n % 2 === 0 ? `ref-${n}` : null
  })

  it('mixed in one batch with unkeyed records: each written once, the same shape either way; a key held twice goes to one record', async () => {
    const { messages } = runtime.current.stores
    const inputs = Array.from({ length: 60 }, (_, n) => pending(n))
    const created = await Promise.all(inputs.map(async (input, n) => n % 3 === 0
      ? (await messages.create(input)).record
      // keys k-0 … k-9, each claimed by several records of the batch
      : (await messages.create(input, { key: { key: `k-${n % 10}`, fingerprint: 'f', ttlMs: 60_000 } }))?.record ?? null))
    const written = created.filter(record => record !== null)
    for (const record of written) {
      const input = inputs.find(candidate => candidate.id === record.id)!
      expect(record).toMatchObject({ ...input, status: 'pending', wamid: null, attempts: 0, sentAt: null })
      expect(record.createdAt).toBeInstanceOf(Date)
      expect(record).toEqual(await messages.get(record.id))
    }
    const keyed = written.filter(record => record.idempotencyKey !== null)
    expect(keyed.map(record => record.idempotencyKey).sort()).toEqual(Array.from({ length: 10 }, (_, n) => `k-${n}`).sort())
    expect(created.filter(record => record === null)).toHaveLength(40 - 10)
    expect(written).toHaveLength(20 + 10)
  })
})
