import { describe, expect, it } from 'vitest'
import type { InvalidMessageId } from '../../src/sandbox/emulator/types.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { handOver, settled } from '../queue/helpers.js'
import { acceptedIds } from './helpers.js'

const KINDS: InvalidMessageId[] = ['missing', 'empty', 'number', 'long', 'control']

// CONTRACT.md 12: an upstream 2xx without a usable message id ends the record failed
// upstream_invalid_response, as an unknown outcome: never retried, moved forward by a later status webhook.
describe('foul weather: a strict reading of the upstream\'s answer', () => {
  const ctx = useGateway()
  const text = async (to: string) => await send(ctx.gateway, { to, body: 'Hello' }, { authorization: ctx.workspace.authorization })

  it.each(KINDS)('a 200 with a %s message id: 502 upstream_invalid_response with the id, never retried, then settled by the status webhook', async kind => {
    const { gateway } = ctx
    const to = `155527000${KINDS.indexOf(kind) + 10}`
    gateway.emulator.setFaults({ recipient: to }, { invalidMessageId: kind })
    const response = await text(to)
    expect(response.statusCode).toBe(502)
    const body = response.json()
    expect(body).toMatchObject({ ok: false, code: 'upstream_invalid_response', id: expect.stringMatching(/^msg_/) })
    expect(acceptedIds(gateway).filter(id => id === body.id)).toHaveLength(1)
    // the emulator did send it: its status webhooks (matched by biz_opaque_callback_data) move the record forward
    const record = await waitFor(async () => { const found = await gateway.app.messages.get(body.id); return found?.status === 'read' && found }, { what: 'the record moved forward' })
    expect(record.wamid).toBe(gateway.emulator.sentMessages.find(sent => (sent.payload as { biz_opaque_callback_data?: string }).biz_opaque_callback_data === body.id)!.wamid)
    const history = (await gateway.app.inject({ url: `/api/messages.php?id=${body.id}`, headers: { authorization: ctx.workspace.authorization } })).json().message.history
    expect(history.map((step: { status: string }) => step.status)).toContain('failed')
  })

  it('without status webhooks the record stays failed upstream_invalid_response, not pending', async () => {
    const { gateway } = ctx
    const to = '15552700020'
    gateway.emulator.setFaults({ recipient: to }, { invalidMessageId: 'empty' })
    gateway.emulator.setStatusOptions({ recipient: to }, { statuses: [] })
    const body = (await text(to)).json()
    expect(await gateway.app.messages.get(body.id)).toMatchObject({ status: 'failed', errorCode: 'upstream_invalid_response', attempts: 1, wamid: null })
  })

  it('the id of another message is no usable id either', async () => {
    const { gateway } = ctx
    const first = await text('15552700021')
    expect(first.statusCode).toBe(200)
    const to = '15552700022'
    gateway.emulator.setFaults({ recipient: to }, { invalidMessageId: 'repeat' })
    gateway.emulator.setStatusOptions({ recipient: to }, { statuses: [] })
    const response = await text(to)
    expect(response.statusCode).toBe(502)
    expect(response.json()).toMatchObject({ code: 'upstream_invalid_response' })
    expect(await gateway.app.messages.get(response.json().id)).toMatchObject({ status: 'failed', errorCode: 'upstream_invalid_response', wamid: null })
    expect(await gateway.app.messages.get(first.json().id)).toMatchObject({ wamid: first.json().wamid })
  })

  it('a queued send answered so ends failed upstream_invalid_response after one call', async () => {
    const { gateway } = ctx
    const to = '15552700023'
    gateway.emulator.setFaults({ recipient: to }, { invalidMessageId: 'control' })
    gateway.emulator.setStatusOptions({ recipient: to }, { statuses: [] })
    const { id } = (await handOver(gateway, ctx.workspace, { to })).json()
    expect(await settled(gateway, id)).toMatchObject({ status: 'failed', errorCode: 'upstream_invalid_response' })
    expect(acceptedIds(gateway).filter(accepted => accepted === id)).toHaveLength(1)
  })
})
