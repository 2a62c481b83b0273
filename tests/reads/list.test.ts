import { describe, expect, it } from 'vitest'
import { connectedWorkspace, type ConnectedWorkspace } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { read } from './helpers.js'

interface Listed { id: string, to: string, status: string, client_reference: string | null, created_at: string }

describe('GET /api/messages.php: the log, newest first, filtered and paged by an opaque cursor', () => {
  let other: ConnectedWorkspace
  const ctx = useGateway({
    env: { RATE_LIMIT_MAX: '100000' },
    setup: async gateway => { other = await connectedWorkspace(gateway) }
  })

  const sendMany = async (count: number, from: number, extra: Record<string, unknown> = {}) =>
    await Promise.all(Array.from({ length: count }, async (_, index) =>
      (await send(ctx.gateway, { to: `1555440${String(from + index).padStart(4, '0')}`, body: 'Hi', ...extra }, { authorization: ctx.workspace.authorization })).json().id as string))

  async function page (query: Record<string, string>): Promise<{ messages: Listed[], next_cursor: string | null }> {
    const response = await read(ctx.gateway, ctx.workspace.authorization, query)
    expect(response.statusCode).toBe(200)
    return response.json()
  }

  it('pages through every message once, in order, while new messages arrive between the pages', async () => {
    // concurrent sends share one insert, so many share a created_at: the id breaks the tie
    const existing = await sendMany(60, 0)
    const seen: Listed[] = []
    let cursor: string | null = null
    let arriving = 100
    do {
      const result = await page({ limit: '7', ...(cursor && { cursor }) })
      seen.push(...result.messages)
      cursor = result.next_cursor
      await sendMany(3, arriving)
      arriving += 3
    } while (cursor)
    const ids = seen.map(message => message.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expect.arrayContaining(existing))
    const times = seen.map(message => message.created_at)
    expect(times).toEqual([...times].sort().reverse())
    expect(Object.keys(seen[0])).toEqual(['id', 'wamid', 'to', 'recipient_user_id', 'from_phone_number_id', 'type', 'status', 'held_reason', 'error', 'attempts', 'client_reference', 'pricing', 'content_purged_at', 'created_at', 'updated_at'])
  })

  it('filters by status, to, since and client_reference, and never shows another workspace\'s messages', async () => {
    const [failed] = await Promise.all([send(ctx.gateway, { to: '15550000001', body: 'Hi' }, { authorization: ctx.workspace.authorization }), sendMany(2, 200, { client_reference: 'batch-7' })])
    const failedId = failed.json().id
    expect((await page({ status: 'failed' })).messages.map(message => message.id)).toEqual([failedId])
    expect((await page({ to: '+15550000001' })).messages.map(message => message.id)).toEqual([failedId])
    const tagged = (await page({ client_reference: 'batch-7' })).messages
    expect(tagged).toHaveLength(2)
    expect(tagged.every(message => message.client_reference === 'batch-7')).toBe(true)

    const { messages: [newest] } = await page({ limit: '1' })
    const since = await page({ since: newest.created_at, limit: '100' })
    expect(since.messages.length).toBeGreaterThan(0)
    expect(since.messages.every(message => message.created_at >= newest.created_at)).toBe(true)
    expect((await page({ since: '2000-01-01', limit: '50' })).next_cursor).not.toBeNull()

    const theirs = await read(ctx.gateway, other.authorization, {})
    expect(theirs.json()).toEqual({ ok: true, messages: [], next_cursor: null })
  })

  it('answers 422 naming the parameter for a bad value', async () => {
    const bad = async (query: Record<string, string>, field: string) =>
      expect(expectEnvelope(await read(ctx.gateway, ctx.workspace.authorization, query), 422, 'invalid_request').field).toBe(field)
    await bad({ status: 'lost' }, 'status')
    await bad({ limit: '0' }, 'limit')
    await bad({ limit: '101' }, 'limit')
    await bad({ limit: 'ten' }, 'limit')
    await bad({ since: 'yesterday' }, 'since')
    await bad({ since: '2026-13-45' }, 'since')
    await bad({ to: 'abc' }, 'to')
    await bad({ cursor: 'not-a-cursor' }, 'cursor')
    // a well-formed cursor we did not issue to this workspace
    const { id } = (await send(ctx.gateway, { to: '15554409999', body: 'Hi' }, { authorization: other.authorization })).json()
    await bad({ cursor: Buffer.from(`m1:${id}`).toString('base64url') }, 'cursor')
    await bad({ cursor: Buffer.from('m1:msg_doesnotexist').toString('base64url') }, 'cursor')
  })
})
