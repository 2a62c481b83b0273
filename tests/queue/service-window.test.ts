import { describe, expect, it } from 'vitest'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { handOver, registeredHoursAgo } from './helpers.js'

const NUMBER = '106540352242922'
const HOUR_MS = 60 * 60_000

/** CONTRACT.md 11: free-form sends to someone who has not written in 24 h are refused at once, from the inbound messages we store. */
describe('service window', () => {
  const ctx = useGateway({ setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) } })
  let inbound = 0

  const text = async (to: string, headers: Record<string, string> = {}) => await send(ctx.gateway, { to, body: 'Hello' }, { authorization: ctx.workspace.authorization, headers })
  const wrote = async (from: string, hoursAgo: number) => {
    await ctx.gateway.app.inbound.insert({ workspaceId: ctx.workspace.workspaceId, phoneNumberId: NUMBER, wamid: `wamid.INWINDOW${inbound++}`, from, type: 'text', payload: { text: { body: 'hi' } }, receivedAt: new Date(Date.now() - hoursAgo * HOUR_MS) })
  }

  it('a connection registered less than 24 h ago has not seen a whole day of inbound messages: nothing is refused', async () => {
    await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 23)
    expect((await text('15554440001')).statusCode).toBe(200)
  })

  it('registered 24 h or more: text, media and interactive to a recipient silent for 24 h get 422 outside_service_window, nothing sent or logged', async () => {
    await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 25)
    const before = ctx.gateway.emulator.sentMessages.length
    const logged = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 1000 })).length
    await wrote('15554440002', 25)
    for (const body of [
      { to: '15554440002', body: 'Hello' },
      { to: '15554440002', type: 'image', link: 'https://example.com/a.png' },
      { to: '15554440002', type: 'interactive', interactive: { type: 'button', body: { text: 'Pick' }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } } }
    ]) {
      const response = await send(ctx.gateway, body, { authorization: ctx.workspace.authorization })
      expect(response.statusCode, JSON.stringify(body)).toBe(422)
      expect(response.json()).toMatchObject({ ok: false, code: 'outside_service_window', error: expect.stringMatching(/template/) })
    }
    const queued = await handOver(ctx.gateway, ctx.workspace, { to: '15554440002' })
    expect(queued.statusCode).toBe(422)
    expect(queued.json().code).toBe('outside_service_window')
    expect(ctx.gateway.emulator.sentMessages.length).toBe(before)
    expect((await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 1000 })).length).toBe(logged)
  })

  it('a recipient who wrote to this number within 24 h is inside the window; writing to another number does not count', async () => {
    await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 25)
    await wrote('15554440003', 23)
    expect((await text('+15554440003')).statusCode).toBe(200)
    await ctx.gateway.app.inbound.insert({ workspaceId: ctx.workspace.workspaceId, phoneNumberId: '106540352242923', wamid: `wamid.INWINDOW${inbound++}`, from: '15554440004', type: 'text', payload: {}, receivedAt: new Date() })
    expect((await text('15554440004')).statusCode).toBe(422)
  })

  it('templates are never refused', async () => {
    await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 25)
    const response = await send(ctx.gateway, { to: '15554440005', type: 'template', template: 'hello_world' }, { authorization: ctx.workspace.authorization })
    expect(response.statusCode).toBe(200)
  })
})

describe('service window: SERVICE_WINDOW_CHECK=off', () => {
  const ctx = useGateway({ env: { SERVICE_WINDOW_CHECK: 'off' }, setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) } })

  it('sends free-form messages whatever the window', async () => {
    await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 25)
    expect((await send(ctx.gateway, { to: '15554440006', body: 'Hello' }, { authorization: ctx.workspace.authorization })).statusCode).toBe(200)
  })
})
