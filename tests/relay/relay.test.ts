import { afterAll, describe, expect, it } from 'vitest'
import { inboxDrained } from '../webhooks/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { postOwn } from '../helpers/http.js'
import { signature } from '../helpers/webhook.js'
import { chatwootAccepts, delivery, entry, fromMeta, messageChange, n8nAccepts, ownWorkspace, relayId, relayTo, templateChange } from './helpers.js'

// CONTRACT.md 18: what Meta sent, passed on to the workspace's other tools as Meta sent it.
describe('relay: Meta\'s webhook passed on', () => {
  const receivers: Receiver[] = []
  const receiver = async (options: Parameters<typeof startReceiver>[0] = {}) => {
    const started = await startReceiver(options)
    receivers.push(started)
    return started
  }
  const ctx = useGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100' }, plan: null })
  afterAll(async () => { for (const started of receivers) await started.close() })
  const appSecret = () => ctx.gateway.emulator.appSecret
  const deliveries = async (workspaceId: string) => await ctx.gateway.app.relays.deliveries(workspaceId, { limit: 500 })

  it('passes Meta\'s bytes on unchanged, signed so that Chatwoot\'s and n8n\'s checks accept them', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const chatwoot = await receiver()
    await relayTo(ctx.gateway.app, workspace.workspaceId, chatwoot.url)
    // spacing, escapes and key order a re-serialisation would not keep
    const raw = `{ "entry" : [ {"id":"${workspace.wabaId}","changes":[${JSON.stringify(messageChange(workspace.phoneNumberIds[0], 'wamid.bytes1', 'ol\\u00e1 ✓ 😀'))}] } ],\n  "object":"whatsapp_business_account" }`
    expect(await fromMeta(ctx.gateway, raw)).toBe(200)
    const [got] = await waitFor(() => chatwoot.received.length === 1 && chatwoot.received, { what: 'the relayed delivery' })
    expect(got.raw.equals(Buffer.from(raw))).toBe(true)
    expect(got.headers['x-hub-signature-256']).toBe(signature(raw, appSecret()))
    expect(chatwootAccepts(got, appSecret())).toBe(true)
    expect(n8nAccepts(got, appSecret())).toBe(true)
    expect(chatwootAccepts(got, 'another secret')).toBe(false)
    expect(got.headers['user-agent']).toBe('Outbound-Relay/1')
    expect(got.headers['content-type']).toBe('application/json')
    const [row] = await waitFor(async () => { const rows = await deliveries(workspace.workspaceId); return rows[0]?.status === 'delivered' && rows })
    expect(relayId(got)).toBe(row.id)
    expect(row.attempts).toBe(1)
  })

  it('signs with the relay\'s own secret, shown once: the whole rls_ string is the key', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const own = await receiver()
    const { secret } = await relayTo(ctx.gateway.app, workspace.workspaceId, own.url, { signing: 'own' })
    expect(secret).toMatch(/^rls_[\w-]{43}$/)
    const raw = JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], 'wamid.own1')])]))
    expect(await fromMeta(ctx.gateway, raw)).toBe(200)
    const [got] = await waitFor(() => own.received.length === 1 && own.received)
    expect(got.raw.toString()).toBe(raw)
    expect(chatwootAccepts(got, secret!)).toBe(true)
    expect(chatwootAccepts(got, appSecret())).toBe(false)
  })

  it('splits a delivery that holds two workspaces\' entries: each target gets its own, in Meta\'s shape, never the other\'s', async () => {
    const [one, two] = [await ownWorkspace(ctx.gateway), await ownWorkspace(ctx.gateway)]
    const [first, second] = [await receiver(), await receiver()]
    await relayTo(ctx.gateway.app, one.workspaceId, first.url)
    await relayTo(ctx.gateway.app, two.workspaceId, second.url)
    const ofOne = entry(one.wabaId, [messageChange(one.phoneNumberIds[0], 'wamid.split1', 'for one')])
    const ofTwo = entry(two.wabaId, [messageChange(two.phoneNumberIds[0], 'wamid.split2', 'for two'), templateChange(38_001)])
    const raw = JSON.stringify(delivery([ofOne, ofTwo]))
    expect(await fromMeta(ctx.gateway, raw)).toBe(200)
    await waitFor(() => first.received.length === 1 && second.received.length === 1, { what: 'both shares' })
    expect(first.received[0].raw.toString()).toBe(JSON.stringify(delivery([ofOne])))
    expect(second.received[0].raw.toString()).toBe(JSON.stringify(delivery([ofTwo])))
    expect(first.received[0].body).not.toContain('for two')
    for (const got of [first.received[0], second.received[0]]) expect(chatwootAccepts(got, appSecret())).toBe(true)
    expect(relayId(first.received[0])).not.toBe(relayId(second.received[0]))
  })

  it('filters by field and by number; a delivery with nothing for a target makes no delivery', async () => {
    const workspace = await ownWorkspace(ctx.gateway, 2)
    const [a, b] = workspace.phoneNumberIds
    const [templates, numberB] = [await receiver(), await receiver()]
    await relayTo(ctx.gateway.app, workspace.workspaceId, templates.url, { fields: ['message_template_status_update'] })
    await relayTo(ctx.gateway.app, workspace.workspaceId, numberB.url, { phoneNumberIds: [b] })
    const mixed = entry(workspace.wabaId, [messageChange(a, 'wamid.filter1'), messageChange(b, 'wamid.filter2'), templateChange(38_002)])
    expect(await fromMeta(ctx.gateway, JSON.stringify(delivery([mixed])))).toBe(200)
    const onlyA = JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(a, 'wamid.filter3')])]))
    expect(await fromMeta(ctx.gateway, onlyA)).toBe(200)
    await waitFor(() => templates.received.length === 1 && numberB.received.length === 1)
    await inboxDrained(ctx.gateway.app)
    const changesOf = (got: Receiver) => JSON.parse(got.received[0].body).entry[0].changes
    expect(changesOf(templates)).toEqual([templateChange(38_002)])
    expect(changesOf(numberB)).toEqual([messageChange(b, 'wamid.filter2'), templateChange(38_002)])
    // onlyA holds nothing for the number-B relay nor for the template relay
    expect(await deliveries(workspace.workspaceId)).toHaveLength(2)
  })

  it('retries a failing target with one delivery id, then it is delivered', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const flaky = await receiver({ plan: [500, 'reset', 503] })
    await relayTo(ctx.gateway.app, workspace.workspaceId, flaky.url)
    const raw = JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], 'wamid.retry1')])]))
    expect(await fromMeta(ctx.gateway, raw)).toBe(200)
    const [row] = await waitFor(async () => { const rows = await deliveries(workspace.workspaceId); return rows[0]?.status === 'delivered' && rows }, { timeoutMs: 20_000 })
    expect(flaky.received).toHaveLength(4)
    expect(new Set(flaky.received.map(relayId))).toEqual(new Set([row.id]))
    expect(flaky.received.every(got => got.raw.toString() === raw && chatwootAccepts(got, appSecret()))).toBe(true)
    expect(row.attempts).toBe(4)
    expect(row.lastResponseStatus).toBe(200)
  })

  it('leaves a target that keeps failing `failed`, and replays it with the same bytes and id', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const down = await receiver({ otherwise: 500 })
    const relay = await relayTo(ctx.gateway.app, workspace.workspaceId, down.url)
    const raw = JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], 'wamid.replay1')])]))
    expect(await fromMeta(ctx.gateway, raw)).toBe(200)
    const [failed] = await waitFor(async () => { const rows = await deliveries(workspace.workspaceId); return rows[0]?.status === 'failed' && rows }, { timeoutMs: 20_000 })
    expect(failed.attempts).toBe(4)
    expect(failed.nextAttemptAt).toBeNull()
    down.answer(200)
    expect(await ctx.gateway.app.relays.replay({ relayId: relay.id, since: new Date(Date.now() - 60_000) })).toBe(1)
    await waitFor(async () => (await deliveries(workspace.workspaceId))[0].status === 'delivered')
    expect(down.received).toHaveLength(5)
    expect(down.received[4].raw.toString()).toBe(raw)
    expect(relayId(down.received[4])).toBe(failed.id)
    // a pending delivery is left alone; one of another workspace is not replayed
    expect(await ctx.gateway.app.relays.replay({ deliveryId: failed.id, workspaceId: 'ws_other' })).toBe(0)
  })

  it('relays each of 50 concurrent deliveries exactly once to each target', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const [first, second] = [await receiver(), await receiver()]
    await relayTo(ctx.gateway.app, workspace.workspaceId, first.url)
    await relayTo(ctx.gateway.app, workspace.workspaceId, second.url, { signing: 'own' })
    const raws = Array.from({ length: 50 }, (_, i) => JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], `wamid.once${i}`)])])))
    expect(await Promise.all(raws.map(async raw => await fromMeta(ctx.gateway, raw)))).toEqual(raws.map(() => 200))
    await waitFor(() => first.received.length >= 50 && second.received.length >= 50, { timeoutMs: 30_000, what: '50 deliveries at each target' })
    await waitFor(async () => (await deliveries(workspace.workspaceId)).every(row => row.status === 'delivered'))
    for (const target of [first, second]) {
      expect(target.received).toHaveLength(50)
      expect(new Set(target.received.map(got => got.body))).toEqual(new Set(raws))
      expect(new Set(target.received.map(relayId)).size).toBe(50)
    }
    expect(await deliveries(workspace.workspaceId)).toHaveLength(100)
  })

  it('delivers to a healthy target, the inbox and the events while another target hangs', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const [hanging, healthy, events] = [await receiver({ otherwise: 'hang' }), await receiver(), await receiver()]
    const stuck = await relayTo(ctx.gateway.app, workspace.workspaceId, hanging.url)
    await relayTo(ctx.gateway.app, workspace.workspaceId, healthy.url)
    const { addEndpoint } = await import('../../src/events/endpoints.js')
    await addEndpoint(ctx.gateway.app, { workspaceId: workspace.workspaceId, url: events.url, events: ['message.received'] })
    const raws = Array.from({ length: 5 }, (_, i) => JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], `wamid.hang${i}`)])])))
    for (const raw of raws) expect(await fromMeta(ctx.gateway, raw)).toBe(200)
    const posted = Date.now()
    await waitFor(() => healthy.received.length === 5 && events.received.length === 5, { timeoutMs: 9000, what: 'the healthy target\'s and the events\' 5' })
    // before the hanging target's first attempt could time out (10 s)
    expect(Date.now() - posted).toBeLessThan(9000)
    expect(hanging.received.length).toBeGreaterThan(0)
    const stuckRows = (await deliveries(workspace.workspaceId)).filter(row => row.relayId === stuck.id)
    expect(stuckRows.map(row => row.status)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending'])
  })

  it('relays nothing unsigned, wrongly signed, unparseable, or for a WABA no workspace connected', async () => {
    const workspace = await ownWorkspace(ctx.gateway)
    const target = await receiver()
    await relayTo(ctx.gateway.app, workspace.workspaceId, target.url)
    const raw = JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], 'wamid.never1')])]))
    expect((await postOwn(`${ctx.gateway.url}/webhooks/whatsapp`, { 'content-type': 'application/json' }, raw)).status).toBe(401)
    expect((await postOwn(`${ctx.gateway.url}/webhooks/whatsapp`, { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }, raw)).status).toBe(401)
    // parses, but nests deeper than any delivery of Meta's: kept aside, not applied, not relayed
    const deep = `{"object":"whatsapp_business_account","entry":[{"id":"${workspace.wabaId}","changes":[{"field":"messages","value":{"x":${'['.repeat(70)}${']'.repeat(70)}}}]}]}`
    expect(await fromMeta(ctx.gateway, deep)).toBe(200)
    expect(await fromMeta(ctx.gateway, JSON.stringify(delivery([entry('999999999999999', [messageChange(workspace.phoneNumberIds[0], 'wamid.never2')])])))).toBe(200)
    await inboxDrained(ctx.gateway.app)
    expect(await deliveries(workspace.workspaceId)).toEqual([])
    expect(target.received).toEqual([])
  })
})
