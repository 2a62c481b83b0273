import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { send } from '../messages/helpers.js'
import { handOver, registeredHoursAgo } from './helpers.js'

const NUMBER = '106540352242922'
const HOUR_MS = 60 * 60_000

/** CONTRACT.md 11: free-form sends to someone who has not written in 24 h are refused at once, from the inbound messages we store. */
describe('service window', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let inbound = 0

  const text = async (to: string, headers: Record<string, string> = {}) => await send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization, headers })
  const wrote = async (from: string, hoursAgo: number) => {
    await gateway.app.inbound.insert({ workspaceId: workspace.workspaceId, phoneNumberId: NUMBER, wamid: `wamid.INWINDOW${inbound++}`, from, type: 'text', payload: { text: { body: 'hi' } }, receivedAt: new Date(Date.now() - hoursAgo * HOUR_MS) })
  }

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
  })
  afterAll(async () => { await gateway?.close() })

  it('a connection registered less than 24 h ago has not seen a whole day of inbound messages: nothing is refused', async () => {
    await registeredHoursAgo(gateway, workspace.workspaceId, 23)
    expect((await text('15554440001')).statusCode).toBe(200)
  })

  it('registered 24 h or more: text, media and interactive to a recipient silent for 24 h get 422 outside_service_window, nothing sent or logged', async () => {
    await registeredHoursAgo(gateway, workspace.workspaceId, 25)
    const before = gateway.emulator.sentMessages.length
    const logged = (await gateway.app.messages.list(workspace.workspaceId, { limit: 1000 })).length
    await wrote('15554440002', 25)
    for (const body of [
      { to: '15554440002', body: 'Hello' },
      { to: '15554440002', type: 'image', link: 'https://example.com/a.png' },
      { to: '15554440002', type: 'interactive', interactive: { type: 'button', body: { text: 'Pick' }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } } }
    ]) {
      const response = await send(gateway, body, { authorization: workspace.authorization })
      expect(response.statusCode, JSON.stringify(body)).toBe(422)
      expect(response.json()).toMatchObject({ ok: false, code: 'outside_service_window', error: expect.stringMatching(/template/) })
    }
    const queued = await handOver(gateway, workspace, { to: '15554440002' })
    expect(queued.statusCode).toBe(422)
    expect(queued.json().code).toBe('outside_service_window')
    expect(gateway.emulator.sentMessages.length).toBe(before)
    expect((await gateway.app.messages.list(workspace.workspaceId, { limit: 1000 })).length).toBe(logged)
  })

  it('a recipient who wrote to this number within 24 h is inside the window; writing to another number does not count', async () => {
    await registeredHoursAgo(gateway, workspace.workspaceId, 25)
    await wrote('15554440003', 23)
    expect((await text('+15554440003')).statusCode).toBe(200)
    await gateway.app.inbound.insert({ workspaceId: workspace.workspaceId, phoneNumberId: '106540352242923', wamid: `wamid.INWINDOW${inbound++}`, from: '15554440004', type: 'text', payload: {}, receivedAt: new Date() })
    expect((await text('15554440004')).statusCode).toBe(422)
  })

  it('templates are never refused', async () => {
    await registeredHoursAgo(gateway, workspace.workspaceId, 25)
    const response = await send(gateway, { to: '15554440005', type: 'template', template: 'hello_world' }, { authorization: workspace.authorization })
    expect(response.statusCode).toBe(200)
  })
})

describe('service window: SERVICE_WINDOW_CHECK=off', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    gateway = await startGateway({ env: { SERVICE_WINDOW_CHECK: 'off' } })
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
  })
  afterAll(async () => { await gateway?.close() })

  it('sends free-form messages whatever the window', async () => {
    await registeredHoursAgo(gateway, workspace.workspaceId, 25)
    expect((await send(gateway, { to: '15554440006', body: 'Hello' }, { authorization: workspace.authorization })).statusCode).toBe(200)
  })
})
