import { randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { envelope, inboxDrained, messagesValue, status, textMessage, WABA_ID } from './helpers.js'

// Text no btree index row can hold (3 bytes a character, no repetition to compress): only the database finds this out.
const oversizedWamid = () => 'wamid.' + Array.from({ length: 1000 }, () => String.fromCodePoint(0x4e00 + randomInt(20000))).join('')

describe('poison: a value that cannot be applied sets aside its own event only', () => {
  const ctx = useGateway({ setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) } })

  async function sent (to: string): Promise<{ id: string, wamid: string }> {
    const response = await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to, body: 'poison test' } })
    expect(response.statusCode).toBe(200)
    const { wamid } = response.json()
    const [record] = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 100 })).filter(message => message.wamid === wamid)
    return { id: record.id, wamid }
  }

  it('answers 200, applies the valid events beside the poison ones, and keeps each poison aside with its reason', async () => {
    const [valid, inMs, huge, alsoValid] = [await sent('15552220001'), await sent('15552220002'), await sent('15552220003'), await sent('15552220004')]
    const body = envelope('messages', messagesValue({
      statuses: [
        status(valid.wamid, 'delivered', '1795000001'),
        status(inMs.wamid, 'delivered', '1795000002000'),
        status(huge.wamid, 'read', '1e20'),
        status(alsoValid.wamid, 'read', '1795000004')
      ],
      messages: [
        textMessage('wamid.in-valid', 'hello'),
        textMessage('wamid.in-nul', 'a\u0000b'),
        textMessage('wamid.in-surrogate', 'broken \ud83d pair'),
        textMessage(oversizedWamid(), 'too long an id for an index')
      ]
    }))
    expect(await ctx.gateway.emulator.sendWebhook(WABA_ID, body)).toBe(200)
    expect((await inboxDrained(ctx.gateway.app)).dead).toBe(0)

    const { messages, inbound, keptAside, statusEvents } = ctx.gateway.app
    expect((await messages.get(valid.id))!.status).toBe('delivered')
    expect((await messages.get(alsoValid.id))!.status).toBe('read')
    expect((await messages.get(inMs.id))!.status).toBe('sent')
    expect((await messages.get(huge.id))!.status).toBe('sent')
    expect((await statusEvents.history(inMs.id)).map(event => event.status)).toEqual([])
    expect((await inbound.list(ctx.workspace.workspaceId)).map(message => message.wamid)).toEqual(['wamid.in-valid'])

    const aside = await keptAside.list({ limit: 10 })
    expect(aside.map(row => [row.kind, row.reason, row.field]).sort()).toEqual([
      ['rejected', 'apply_failed_54000', null],
      ['rejected', 'timestamp_out_of_range', 'statuses[1].timestamp'],
      ['rejected', 'timestamp_out_of_range', 'statuses[2].timestamp'],
      ['rejected', 'unstorable_text', 'messages[1].text.body'],
      ['rejected', 'unstorable_text', 'messages[2].text.body']
    ])
    // each is kept as received, escaped so that a text column takes it
    const nul = aside.find(row => row.field === 'messages[1].text.body')!
    expect(JSON.parse(nul.event)).toMatchObject({ id: 'wamid.in-nul', text: { body: 'a\u0000b' } })
    expect(aside.every(row => row.jobId !== null && row.routeId !== null)).toBe(true)
  })

  it('keeps a body the upstream would never send (not its object) aside rather than failing it', async () => {
    expect(await ctx.gateway.emulator.sendWebhook(WABA_ID, { object: 'page', entry: [] })).toBe(200)
    await inboxDrained(ctx.gateway.app)
    const [latest] = await ctx.gateway.app.keptAside.list({ limit: 1 })
    expect(latest).toMatchObject({ kind: 'rejected', reason: 'unknown_object' })
  })
})
