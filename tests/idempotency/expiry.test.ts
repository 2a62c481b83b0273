import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { upstreamRequestsTo } from '../reads/helpers.js'

// A gateway each: keys that expire within a second would let the queue_full test pass for the wrong reason.
describe('Idempotency-Key expiry (IDEMPOTENCY_TTL_MS = 1 s)', () => {
  const ctx = useGateway({ env: { IDEMPOTENCY_TTL_MS: '1000' } })

  it('sweeps an expired key; the key then starts afresh, even with another message', async () => {
    const key = 'expiring'
    const first = await send(ctx.gateway, { to: '15556670001', body: 'One' }, { authorization: ctx.workspace.authorization, headers: { 'idempotency-key': key } })
    expect(first.statusCode).toBe(200)
    const keys = async () => rowsOf<{ count: number }>(await ctx.gateway.app.database.db.execute(sql`select count(*)::int as count from idempotency_keys`))[0].count
    expect(await keys()).toBe(1)
    await waitFor(async () => await keys() === 0, { what: 'the sweep' })
    const second = await send(ctx.gateway, { to: '15556670001', body: 'Two' }, { authorization: ctx.workspace.authorization, headers: { 'idempotency-key': key } })
    expect(second.statusCode).toBe(200)
    expect(second.json().id).not.toBe(first.json().id)
  })
})

describe('Idempotency-Key and queue_full', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '1', QUEUE_LIMIT: '1', RATE_LIMIT_MAX: '100000' } })

  it('keeps no queue_full answer: the same key later runs afresh and sends', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, async (_, index) =>
      await send(ctx.gateway, { to: `155566800${index}`, body: 'Hi' }, { authorization: ctx.workspace.authorization, headers: { 'idempotency-key': `full-${index}` } })))
    const full = answers.map((answer, index) => ({ answer, index })).filter(({ answer }) => answer.statusCode === 503)
    expect(full.length).toBeGreaterThan(0)
    for (const { answer } of full) expect(expectEnvelope(answer, 503, 'queue_full').id).toMatch(/^msg_/)
    for (const { index } of full) {
      const retry = await send(ctx.gateway, { to: `155566800${index}`, body: 'Hi' }, { authorization: ctx.workspace.authorization, headers: { 'idempotency-key': `full-${index}` } })
      expect(retry.statusCode).toBe(200)
      expect(retry.headers['idempotent-replayed']).toBeUndefined()
      expect(upstreamRequestsTo(ctx.gateway, `155566800${index}`)).toBe(1)
    }
  })
})
