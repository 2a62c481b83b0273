import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { handOver, settled } from './helpers.js'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Queued sends go through the Redis pacer too (REDIS_URL), in its queued lane, beside live sends. */
describe('queued sends with the Redis pacer', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    gateway = await startGateway({ env: { REDIS_URL } })
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
  })
  afterAll(async () => { await gateway?.close() })

  it('drains in order per recipient while a live send goes through', async () => {
    const to = '15552240001'
    const ids: string[] = []
    for (let index = 0; index < 10; index++) ids.push((await handOver(gateway, workspace, { to: index % 2 === 0 ? to : `1555224100${index}`, body: `m${index}` })).json().id)
    const live = await send(gateway, { to: '15552240002', body: 'live' }, { authorization: workspace.authorization })
    expect(live.statusCode).toBe(200)
    for (const id of ids) expect((await settled(gateway, id)).status).toBe('sent')
    const bodies = gateway.emulator.sentMessages.filter(sent => sent.to === to).sort((a, b) => a.at - b.at).map(sent => (sent.payload as { text: { body: string } }).text.body)
    expect(bodies).toEqual(['m0', 'm2', 'm4', 'm6', 'm8'])
  })
})
