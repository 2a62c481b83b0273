import { describe, expect, it } from 'vitest'
import { newId } from '../../src/store/ids.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { postWebhook } from '../helpers/webhook.js'
import { envelope, messagesValue, NUMBER_ID, status } from '../webhooks/helpers.js'

// UPSTREAM_TIMEOUT_MS + DISPATCH_DEADLINE_MS: the longest a dispatch can take, here 2 s
const BOUND_MS = 2000

// CONTRACT.md 12: no record stays pending or sending longer than UPSTREAM_TIMEOUT_MS +
// DISPATCH_DEADLINE_MS while its process lives.
describe('foul weather: the sweeper of records in flight', () => {
  const ctx = useGateway({ env: { UPSTREAM_TIMEOUT_MS: '1000', DISPATCH_DEADLINE_MS: '1000' } })

  /** A record of this process that nothing is dispatching: what a lost outcome write leaves behind. */
  async function orphan (to: string): Promise<string> {
    const { app } = ctx.gateway
    const id = newId('msg')
    await app.messages.create({
      id,
      workspaceId: ctx.workspace.workspaceId,
      apiKeyId: ctx.workspace.apiKeyId,
      phoneNumberId: NUMBER_ID,
      recipient: to,
      type: 'text',
      payload: { messaging_product: 'whatsapp', to, type: 'text', text: { body: 'Hello' }, biz_opaque_callback_data: id },
      dispatcherId: app.dispatcherId
    })
    return id
  }

  it('settles a record its live process lost track of as an unknown outcome, within the bound and a sweep', async () => {
    const { app } = ctx.gateway
    const id = await orphan('15552800001')
    const created = Date.now()
    const record = await waitFor(async () => { const found = await app.messages.get(id); return found?.status === 'failed' && found }, { what: 'the orphan settled' })
    expect(record).toMatchObject({ errorCode: 'outcome_unknown', errorText: expect.stringMatching(/may or may not have been sent/) })
    expect(Date.now() - created).toBeGreaterThanOrEqual(BOUND_MS - 100)
  })

  it('leaves the records being dispatched alone, however slow the upstream within its timeout', async () => {
    const { gateway, workspace } = ctx
    const to = '15552800002'
    gateway.emulator.setFaults({ recipient: to }, { latencyMs: 800 })
    const answers = await Promise.all([1, 2, 3].map(async () => await send(gateway, { to, body: 'Hello' }, { authorization: workspace.authorization })))
    expect(answers.map(answer => answer.statusCode)).toEqual([200, 200, 200])
    for (const answer of answers) expect((await gateway.app.messages.get(answer.json().id))?.errorCode).toBeNull()
  })

  it('a later status webhook moves a settled record forward: it was sent after all', async () => {
    const { gateway } = ctx
    const id = await orphan('15552800003')
    await waitFor(async () => (await gateway.app.messages.get(id))?.status === 'failed', { what: 'the orphan settled' })
    const raw = JSON.stringify(envelope('messages', messagesValue({ statuses: [status('wamid.swept-then-delivered', 'delivered', String(Math.floor(Date.now() / 1000)), { biz_opaque_callback_data: id })] })))
    expect((await postWebhook(gateway.url, raw, gateway.emulator.appSecret)).status).toBe(200)
    const record = await waitFor(async () => { const found = await gateway.app.messages.get(id); return found?.status === 'delivered' && found }, { what: 'the record moved forward' })
    expect(record).toMatchObject({ wamid: 'wamid.swept-then-delivered', errorCode: null })
  })
})
