import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { jobSql } from '../../src/work/jobs.js'
import { coolDown } from '../../src/store/suppressions.js'
import { linkUserIds } from '../../src/store/user-ids.js'
import { api, MARKETING, sendTo } from '../audience/helpers.js'
import { createCampaign, untilStatus } from '../campaigns/helpers.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { expectEnvelope } from '../messages/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { postWebhook } from '../helpers/webhook.js'
import { envelope, inboxDrained, messagesValue, NUMBER_ID, status, textMessage } from '../webhooks/helpers.js'
import { dumpDatabase, dumpFiles, found } from './helpers.js'

const MEDIA_DIR = mkdtempSync(join(tmpdir(), 'outbound-privacy-'))
const tag = randomBytes(4).toString('hex')

/** One person's data of every kind, each carrying their marker text. */
function personOf (n: number) {
  return { to: `1777${n}${tag.replace(/[a-f]/g, '7').slice(0, 6)}`, userId: `US.priv${tag}${n}`, marker: `Olá "ZXQ${tag}${n}" — ü` }
}

/** CONTRACT.md 17: erasing one person reaches every table and file that can hold them, and nothing of anyone else's. */
describe('privacy: erasure of one person', () => {
  let receiver: Receiver
  const ctx = useGateway({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true', SERVICE_WINDOW_CHECK: 'off', MEDIA_DIR, WEBHOOK_RETRY_SCHEDULE_MS: '100' },
    setup: async (gateway, workspace) => {
      receiver = await startReceiver()
      await subscribe(gateway.app, workspace!.workspaceId, receiver.url)
    }
  })
  afterAll(async () => { await receiver?.close() })
  const erased = personOf(1)
  const kept = personOf(2)
  const wamids: string[] = []

  async function leaveTraces (person: ReturnType<typeof personOf>, n: number) {
    const { gateway, workspace } = ctx
    const { app } = gateway
    const { db } = app.database
    const text = await sendTo(gateway, workspace, person.to, { body: person.marker }, { 'idempotency-key': `key-${tag}-${n}` })
    expect(text.statusCode).toBe(200)
    wamids.push(text.json().wamid)
    const template = { ...MARKETING, components: [{ type: 'body', parameters: [{ type: 'text', text: person.marker }, { type: 'text', text: '15%' }] }] }
    expect((await sendTo(gateway, workspace, person.to, template)).statusCode).toBe(200)
    const byId = await sendTo(gateway, workspace, '', { to: undefined, recipient: person.userId, body: person.marker })
    expect(byId.statusCode).toBe(200)
    // what they wrote, with their user id alongside, and a status for a wamid no record has
    const inboundWamid = `wamid.IN${tag}${n}`
    const raw = JSON.stringify(envelope('messages', messagesValue({
      messages: [textMessage(inboundWamid, person.marker, { from: person.to, from_user_id: person.userId })],
      statuses: [status(`wamid.UNKNOWN${tag}${n}`, 'delivered', '1795000000', { recipient_id: person.to })]
    })))
    expect((await postWebhook(gateway.url, raw, gateway.emulator.appSecret)).status).toBe(200)
    await inboxDrained(app)
    // a file they sent, mirrored
    const [inbound] = rowsOf<{ id: string }>(await db.execute(sql`select id from inbound_messages where wamid = ${inboundWamid}`))
    const bytes = Buffer.from(`file of ${person.marker}`)
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    mkdirSync(join(MEDIA_DIR, sha256.slice(0, 2)), { recursive: true })
    writeFileSync(join(MEDIA_DIR, sha256.slice(0, 2), sha256), bytes)
    await db.execute(sql`insert into media (workspace_id, media_id, origin, phone_number_id, inbound_message_id, kind, sha256, filename, stored_at, expires_at)
      values (${workspace.workspaceId}, ${`m${tag}${n}`}, 'inbound', ${NUMBER_ID}, ${inbound.id}, 'document', ${sha256}, ${`${person.marker}.pdf`}, now(), now() + interval '7 days')`)
    // a campaign, a CSV upload awaiting confirmation, an opt-out, a cool-down, a user-id change, a dead-lettered delivery, a kept-aside part
    const campaign = await createCampaign(gateway, workspace, { template: 'order_confirmation', language: 'en_US', recipients: [{ to: `+${person.to}`, variables: [person.marker] }] })
    expect(campaign.statusCode).toBe(201)
    await untilStatus(gateway, workspace, campaign.json().campaign.id, 'completed')
    await db.execute(sql`insert into campaign_uploads (id, workspace_id, user_id, campaign, recipients, expires_at)
      values (${`cup_${tag}${n}`}, ${workspace.workspaceId}, 'usr_x', '{}'::jsonb, ${JSON.stringify([{ to: person.to, variables: [person.marker], clientReference: null }])}::jsonb, now() + interval '1 hour')`)
    expect((await api(gateway, workspace, 'POST', '/api/suppressions.php', { to: person.to })).statusCode).toBe(200)
    await coolDown(db, [{ workspaceId: workspace.workspaceId, recipient: person.userId, until: new Date(Date.now() + 3_600_000) }])
    await linkUserIds(db, [{ workspaceId: workspace.workspaceId, oldUserId: `${person.userId}old`, newUserId: person.userId }])
    const [dead] = await jobSql.enqueue(db, [{ queue: 'webhook-inbox', payload: JSON.stringify(envelope('messages', messagesValue({ messages: [textMessage(`wamid.DEAD${tag}${n}`, person.marker, { from: person.to })] }))), runAt: new Date(Date.now() + 3_600_000) }])
    await db.execute(sql`update jobs set status = 'dead' where id = ${dead}`)
    // an on_reply read mark still to be made: its job carries the message, and so its sender's number
    await jobSql.enqueue(db, [{ queue: 'read-marks', runAt: new Date(Date.now() + 3_600_000), payload: JSON.stringify({ kind: 'reply', message: { id: `in_rm${tag}${n}`, workspaceId: workspace.workspaceId, phoneNumberId: NUMBER_ID, wamid: `wamid.RM${tag}${n}`, from: person.to, fromUserId: null, receivedAt: new Date().toISOString() } }) }])
    await db.execute(sql`insert into webhook_kept_aside (id, kind, reason, route_id, event) values (${`wka_${tag}${n}`}, 'rejected', 'invalid_text', ${NUMBER_ID}, ${JSON.stringify({ from: person.to, text: { body: person.marker } })})`)
  }

  async function figures () {
    const { db } = ctx.gateway.app.database
    const read = async (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(await db.execute(query))
    return {
      usageSent: await read(sql`select hour, prefix, messages from usage_sent where workspace_id = ${ctx.workspace.workspaceId} order by 1, 2`),
      usagePriced: await read(sql`select hour, prefix, category, billable, free, unpriced from usage_priced where workspace_id = ${ctx.workspace.workspaceId} order by 1, 2, 3`),
      campaigns: await read(sql`select id, accepted, rejected, skipped, materialised from campaigns where workspace_id = ${ctx.workspace.workspaceId} order by id`),
      limits: await read(sql`select waba_id, used from messaging_limit_counts order by 1`),
      limitRows: await read(sql`select waba_id, count(*)::int as n from messaging_limit_recipients group by 1 order by 1`),
      statuses: await read(sql`select status, count(*)::int as n from messages where workspace_id = ${ctx.workspace.workspaceId} group by 1 order by 1`)
    }
  }

  it('leaves no form of the person in a dump of any table or in the media store; the other person is untouched; the counts stay', async () => {
    const { gateway, workspace } = ctx
    await leaveTraces(erased, 1)
    await leaveTraces(kept, 2)
    await waitFor(async () => rowsOf<{ n: number }>(await gateway.app.database.db.execute(sql`select count(*)::int as n from webhook_deliveries where status = 'pending'`))[0].n === 0, { what: 'every event delivered' })
    // the emulator's statuses have all arrived: what moves from here on is the erasure's doing
    await waitFor(async () => rowsOf<{ n: number }>(await gateway.app.database.db.execute(sql`select count(*)::int as n from messages where workspace_id = ${workspace.workspaceId} and status not in ('read', 'failed')`))[0].n === 0, { what: 'every record read' })
    const before = await figures()
    const dumped = await dumpDatabase(gateway.app) + dumpFiles(MEDIA_DIR)
    expect(found(dumped, erased.marker).length).toBeGreaterThan(0)
    expect(found(dumped, erased.to)).not.toEqual([])

    const asked = await api(gateway, workspace, 'POST', '/api/erasures.php', { to: `+${erased.to}` })
    expect(asked.statusCode).toBe(202)
    expect(asked.json().erasure).toMatchObject({ id: expect.stringMatching(/^era_/), status: 'pending', completed_at: null })
    const id = asked.json().erasure.id
    const done = await waitFor(async () => {
      const erasure = (await api(gateway, workspace, 'GET', `/api/erasures.php?id=${id}`)).json().erasure
      return erasure.status === 'completed' && erasure
    }, { what: 'the erasure completed', timeoutMs: 60_000 })
    expect(done.counts).toMatchObject({ messages: 4, inbound: 1, media_files: 1, campaign_recipients: 2 })
    expect(done.counts.webhook_deliveries).toBeGreaterThanOrEqual(2)
    expect(done.counts.event_deliveries).toBeGreaterThan(0)
    // contact.erased reached the customer, and its stored body went once it was delivered
    const event = await waitFor(() => receiver.received.map(entry => JSON.parse(entry.body)).find(body => body.type === 'contact.erased'), { what: 'contact.erased delivered' })
    expect(event.data).toMatchObject({ id, to: erased.to, recipient_user_id: erased.userId })
    await waitFor(async () => rowsOf<{ n: number }>(await gateway.app.database.db.execute(sql`select count(*)::int as n from webhook_deliveries where type = 'contact.erased' and content_purged_at is null`))[0].n === 0, { what: 'contact.erased body purged' })

    const after = await dumpDatabase(gateway.app) + dumpFiles(MEDIA_DIR)
    for (const value of [erased.marker, erased.to, erased.userId, `${erased.userId}old`, ...wamids.slice(0, 1)]) expect(found(after, value), value).toEqual([])
    for (const value of [kept.marker, kept.to, kept.userId, wamids[1]]) expect(found(after, value), value).not.toEqual([])
    expect(await figures()).toEqual(before)

    // the opt-out stays, as an HMAC: a MARKETING send is still refused, and the list names nobody
    expectEnvelope(await sendTo(gateway, workspace, erased.to, MARKETING), 422, 'recipient_opted_out')
    const listed = (await api(gateway, workspace, 'GET', '/api/suppressions.php')).json().suppressions
    expect(listed).toContainEqual(expect.objectContaining({ to: null, recipient_user_id: null, erased: true }))
    expect(listed).toContainEqual(expect.objectContaining({ to: kept.to, erased: false }))
    // the records keep their metadata, erased
    const page = (await api(gateway, workspace, 'GET', '/api/messages.php?limit=100')).json().messages as Array<Record<string, unknown>>
    expect(page.filter(message => message.erased)).toHaveLength(4)
    expect(page.filter(message => message.erased).every(message => message.to === null && message.wamid === null && message.content_purged_at !== null)).toBe(true)
    const actions = (await gateway.app.auditLog.page(workspace.workspaceId, { limit: 50 })).filter(entry => entry.targetId === id).map(entry => [entry.action, entry.actorKind])
    expect(actions).toEqual(expect.arrayContaining([['erasure.requested', 'key'], ['erasure.completed', 'system']]))
  })

  it('GET lists erasures newest first; an unknown id is a 404; a key without privacy:write gets 403', async () => {
    const { gateway, workspace } = ctx
    const listed = (await api(gateway, workspace, 'GET', '/api/erasures.php')).json()
    expect(listed).toMatchObject({ ok: true, next_cursor: null })
    expect(Array.isArray(listed.erasures)).toBe(true)
    expectEnvelope(await api(gateway, workspace, 'GET', '/api/erasures.php?id=era_nope'), 404, 'not_found')
    expectEnvelope(await api(gateway, workspace, 'POST', '/api/erasures.php', {}), 422, 'invalid_request')
    const { secret } = await gateway.app.keys.create(workspace.workspaceId, 'narrow', { scopes: ['messages:send'] })
    const narrow = await gateway.app.inject({ method: 'POST', url: '/api/erasures.php', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, payload: JSON.stringify({ to: '15550001111' }) })
    expect(expectEnvelope(narrow, 403, 'insufficient_scope').error).toMatch(/privacy:write/)
  })
})
