import { afterAll, describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { Browser, userIn } from '../dashboard/helpers.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { envelope, messagesValue, status } from '../webhooks/helpers.js'

interface Step { status: string, at: string, error: { code: string, message: string | null } | null }
interface Message { id: string, wamid: string | null, status: string, error: Step['error'], history: Step[] }

const account = defaultAccount()

/**
 * One story of a message (issue 24): the messages API, the dashboard and the events tell the same
 * ordered history — queued → sending → sent → delivered → read, or → failed with its error — with
 * the upstream's own events beside ours, none twice, none before what it must follow.
 */
describe('a message\'s history, over HTTP: one ordered story', () => {
  let receiver: Receiver
  let browser: Browser
  const ctx = useGateway({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true' },
    setup: async (gateway, workspace) => {
      receiver = await startReceiver()
      await subscribe(gateway.app, workspace!.workspaceId, receiver.url)
      browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace!.workspaceId))
    }
  })
  afterAll(async () => { await receiver?.close() })

  async function api (path: string, init: RequestInit = {}) {
    const response = await fetch(`${ctx.gateway.url}${path}`, { ...init, headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json', ...init.headers } })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }
  const send = async (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    await api('/api/messages.php', { method: 'POST', body: JSON.stringify(body), headers })
  const read = async (id: string) => (await api(`/api/messages.php?id=${id}`)).body.message as Message
  const statuses = (message: Message) => message.history.map(step => step.status)
  const settled = async (id: string, last: string) => await waitFor(async () => {
    const message = await read(id)
    return message.history.at(-1)?.status === last && message
  }, { what: `${last} last in the history` })

  function expectOrdered (history: Step[]) {
    const times = history.map(step => Date.parse(step.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    const seen = statuses({ history } as Message)
    expect(new Set(seen).size).toBe(seen.length)
  }

  async function dashboardHistory (id: string) {
    const answer = await browser.get(`/dashboard/messages/${id}/status`)
    expect(answer.statusCode).toBe(200)
    return (answer.json().history as Array<{ status: string }>).map(step => step.status)
  }

  const eventTypesFor = (id: string) => receiver.events().filter(event => event.data.id === id).map(event => event.type as string)

  it('a synchronous send: pending → sent → delivered → read, the upstream\'s sent once, in the API, the dashboard and the events', async () => {
    const sent = await send({ to: '15553330001', body: 'Hello' })
    expect(sent.status).toBe(200)
    const id = sent.body.id as string
    const message = await settled(id, 'read')
    expect(statuses(message)).toEqual(['pending', 'sent', 'delivered', 'read'])
    expectOrdered(message.history)
    expect(message.history.every(step => step.error === null)).toBe(true)
    expect(await dashboardHistory(id)).toEqual(statuses(message))
    await waitFor(async () => eventTypesFor(id).length >= 3, { what: 'three events' })
    expect(eventTypesFor(id).sort()).toEqual(['message.delivered', 'message.read', 'message.sent'])
  })

  it('the upstream\'s whole-second stamps never come before our pending, and arrive in any order', async () => {
    const to = '15553330002'
    ctx.gateway.emulator.setStatusOptions({ recipient: to }, { statuses: [] })
    const sent = await send({ to, body: 'Hello' })
    const id = sent.body.id as string
    const wamid = sent.body.wamid as string
    const created = Date.parse((await read(id)).history[0].at)
    // stamped to the second the record was created in: earlier than `pending` by its milliseconds
    const second = Math.floor(created / 1000)
    const stamps = [status(wamid, 'read', String(second)), status(wamid, 'delivered', String(second)), status(wamid, 'sent', String(second))]
    // read first, then delivered, then sent (twice: a repeat delivery)
    for (const stamp of [...stamps, stamps[2]]) {
      expect(await ctx.gateway.emulator.sendWebhook(account.wabaId, envelope('messages', messagesValue({ statuses: [stamp] })))).toBe(200)
    }
    const message = await waitFor(async () => {
      const found = await read(id)
      return found.history.length === 4 && found
    }, { what: 'three upstream events in the history' })
    expect(statuses(message)).toEqual(['pending', 'sent', 'delivered', 'read'])
    expectOrdered(message.history)
    expect(message.history[0].at).toBe(new Date(created).toISOString())
    expect(message.status).toBe('read')
    expect(await dashboardHistory(id)).toEqual(statuses(message))
  })

  it('a queued send: queued → sending → sent → delivered → read, each when it happened', async () => {
    const handed = await send({ to: '15553330003', body: 'Later' }, { prefer: 'respond-async' })
    expect(handed.status).toBe(202)
    const id = handed.body.id as string
    const message = await settled(id, 'read')
    expect(statuses(message)).toEqual(['queued', 'sending', 'sent', 'delivered', 'read'])
    expectOrdered(message.history)
    expect(Date.parse(message.history[1].at)).toBeGreaterThanOrEqual(Date.parse(message.history[0].at))
    expect(await dashboardHistory(id)).toEqual(statuses(message))
    await waitFor(async () => eventTypesFor(id).length >= 4, { what: 'four events' })
    expect(eventTypesFor(id).sort()).toEqual(['message.delivered', 'message.queued', 'message.read', 'message.sent'])
  })

  it('a refused send: pending → failed with its error, once, and the dashboard says the same', async () => {
    const refused = await send({ to: '15550000001', body: 'Hello' })
    expect(refused.status).toBe(502)
    const id = refused.body.id as string
    const message = await read(id)
    expect(message.history).toEqual([
      { status: 'pending', at: expect.any(String), error: null },
      { status: 'failed', at: expect.any(String), error: { code: '131026', message: expect.any(String) } }
    ])
    expectOrdered(message.history)
    expect(await dashboardHistory(id)).toEqual(['pending', 'failed'])
    await waitFor(async () => eventTypesFor(id).length >= 1, { what: 'the failed event' })
    expect(eventTypesFor(id)).toEqual(['message.failed'])
  })

  it('a send the upstream fails later: pending → sent → failed, the failure last with its error', async () => {
    const sent = await send({ to: '15550000003', body: 'Hello' })
    expect(sent.status).toBe(200)
    const id = sent.body.id as string
    const message = await settled(id, 'failed')
    expect(statuses(message).filter(name => name !== 'failed')).toEqual(['pending', 'sent'])
    expect(message.history.at(-1)).toEqual({ status: 'failed', at: expect.any(String), error: { code: '131047', message: expect.any(String) } })
    expectOrdered(message.history)
    expect(await dashboardHistory(id)).toEqual(statuses(message))
  })
})
