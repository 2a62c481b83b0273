import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { dumpDatabase, found } from './helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
const MARKER = `swept-${Date.now()}`

/**
 * CONTRACT.md 17's retention: a workspace's content older than `retention_days` is purged by a
 * sweep of the durable-work runner every RETENTION_SWEEP_MS, with nobody running a purge; newer
 * content and the metadata stay.
 */
describe('the retention sweep on the runner', () => {
  const ctx = useGateway({ env: { RETENTION_SWEEP_MS: '1000' } })

  async function sent (to: string, body: string): Promise<string> {
    const answer = await send(ctx.gateway, { to, body }, { authorization: ctx.workspace.authorization })
    expect(answer.statusCode).toBe(200)
    return answer.json().id as string
  }
  async function received (from: string, body: string): Promise<{ id: string, content_purged_at: string | null, text: string | null }> {
    const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from, payload: { body } })
    return await waitFor(async () => {
      const answer = await ctx.gateway.app.inject({ url: `/api/inbound.php?wamid=${encodeURIComponent(wamid)}`, headers: { authorization: ctx.workspace.authorization } })
      return answer.statusCode === 200 && answer.json().message
    }, { what: 'the inbound message stored' })
  }
  const inboundNow = async (id: string) => (await ctx.gateway.app.inject({ url: `/api/inbound.php?id=${id}`, headers: { authorization: ctx.workspace.authorization } })).json().message

  it('purges the content older than the workspace\'s retention within a sweep or two, and keeps the newer content and every number', async () => {
    const { db } = ctx.gateway.app.database
    const oldSent = await sent('15550401001', `${MARKER} old sent`)
    const newSent = await sent('15550401002', `${MARKER} new sent`)
    const oldReceived = await received('15550401003', `${MARKER} old received`)
    const newReceived = await received('15550401004', `${MARKER} new received`)
    await db.execute(sql`update messages set created_at = now() - interval '3 days' where id = ${oldSent}`)
    await db.execute(sql`update inbound_messages set received_at = now() - interval '3 days' where id = ${oldReceived.id}`)

    await ctx.gateway.app.workspaces.setRetention(ctx.workspace.workspaceId, 2)
    await waitFor(async () => (await inboundNow(oldReceived.id)).content_purged_at !== null, { timeoutMs: 15_000, what: 'the old inbound message purged by the sweep' })
    const records = async () => rowsOf<{ id: string, recipient: string, purged: boolean }>(await db.execute(sql`select id, recipient, content_purged_at is not null as purged from messages where id in (${oldSent}, ${newSent}) order by recipient`))
    await waitFor(async () => (await records())[0].purged, { what: 'the old record purged by the sweep' })

    expect(await records()).toEqual([{ id: oldSent, recipient: '15550401001', purged: true }, { id: newSent, recipient: '15550401002', purged: false }])
    expect(await inboundNow(oldReceived.id)).toMatchObject({ text: null, from: '15550401003' })
    expect(await inboundNow(newReceived.id)).toMatchObject({ text: `${MARKER} new received`, content_purged_at: null })
    const dumped = await dumpDatabase(ctx.gateway.app)
    expect(found(dumped, `${MARKER} old sent`)).toEqual([])
    expect(found(dumped, `${MARKER} old received`)).toEqual([])
    expect(found(dumped, `${MARKER} new sent`)).not.toEqual([])
    await ctx.gateway.app.workspaces.setRetention(ctx.workspace.workspaceId, null)
  })
})
