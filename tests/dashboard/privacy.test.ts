import { describe, expect, it } from 'vitest'
import { configuredStorage } from '../../src/media/stores.js'
import { purgeContent } from '../../src/privacy/purge.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { sendTo } from '../audience/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { Browser, userIn } from './helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id

/** Settings → Privacy and a conversation's "erase this person" (CONTRACT.md 17), as a signed-in user posts them. */
describe('dashboard: privacy', () => {
  const ctx = useGateway({ env: { SERVICE_WINDOW_CHECK: 'off' } })
  const browser = async () => await Browser.signIn(ctx.gateway.app, await userIn(ctx.gateway.app, ctx.workspace.workspaceId))
  const dashboardActions = async () => (await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 20 }))
    .filter(row => row.actorKind === 'dashboard').map(row => row.action)

  it('sets the retention (1–3650 days or for ever), refuses anything else, audits it, and says why a purged record has no content', async () => {
    const user = await browser()
    const first = await user.get('/dashboard/privacy')
    expect(first.statusCode).toBe(200)
    expect(first.body).toContain('aria-current="page">Privacy')
    expect(first.body).toContain('Content is kept until you remove it.')
    for (const days of ['0', '3651', 'ten', '-5']) {
      const refused = await user.post('/dashboard/privacy/retention', { days }, { from: '/dashboard/privacy' })
      expect(refused.statusCode).toBe(422)
      expect(refused.body).toContain('A number of days from 1 to 3650')
    }
    expect((await ctx.gateway.app.workspaces.get(ctx.workspace.workspaceId))?.retentionDays).toBeNull()

    const saved = await user.post('/dashboard/privacy/retention', { days: '30' }, { from: '/dashboard/privacy' })
    expect(saved.statusCode).toBe(303)
    expect(saved.headers.location).toBe('/dashboard/privacy?done=retention-saved')
    expect((await ctx.gateway.app.workspaces.get(ctx.workspace.workspaceId))?.retentionDays).toBe(30)
    expect((await user.get('/dashboard/privacy?done=retention-saved')).body).toContain('Content is removed after 30 days.')
    expect(await dashboardActions()).toContain('workspace.retention_changed')

    const body = `purge me ${Date.now()}`
    const sent = await sendTo(ctx.gateway, ctx.workspace, '15550301111', { body })
    expect(sent.statusCode).toBe(200)
    expect((await user.get(`/dashboard/messages/${sent.json().id}`)).body).toContain(body)
    const { app } = ctx.gateway
    await purgeContent({ db: app.database.db, storage: configuredStorage(app.config) }, { workspaceId: ctx.workspace.workspaceId, before: new Date(Date.now() + 1000) }, { dryRun: false })
    const purged = (await user.get(`/dashboard/messages/${sent.json().id}`)).body
    expect(purged).toContain('Content removed after 30 days')
    expect(purged).not.toContain(body)

    expect((await user.post('/dashboard/privacy/retention', { days: '' }, { from: '/dashboard/privacy' })).statusCode).toBe(303)
    expect((await ctx.gateway.app.workspaces.get(ctx.workspace.workspaceId))?.retentionDays).toBeNull()
  })

  it('erases a person by number once confirmed, lists the erasure without naming them, and refuses an unconfirmed or malformed one', async () => {
    const user = await browser()
    const to = '15550302222'
    expect((await sendTo(ctx.gateway, ctx.workspace, to, { body: 'to be forgotten' })).statusCode).toBe(200)
    const unconfirmed = await user.post('/dashboard/privacy/erasures', { person: `+${to}` }, { from: '/dashboard/privacy' })
    expect(unconfirmed.statusCode).toBe(422)
    expect(unconfirmed.body).toContain('Tick the box')
    const malformed = await user.post('/dashboard/privacy/erasures', { person: 'not a number', confirm: 'yes' }, { from: '/dashboard/privacy' })
    expect(malformed.statusCode).toBe(422)
    expect(malformed.body).toContain('A phone number (an optional +, then 7 to 15 digits)')
    expect(await ctx.gateway.app.erasures.list(ctx.workspace.workspaceId, { limit: 10 })).toEqual([])

    const asked = await user.post('/dashboard/privacy/erasures', { person: `+${to}`, confirm: 'yes' }, { from: '/dashboard/privacy' })
    expect(asked.statusCode).toBe(303)
    expect(asked.headers.location).toBe('/dashboard/privacy?done=erasure-requested')
    const [erasure] = await waitFor(async () => {
      const rows = await ctx.gateway.app.erasures.list(ctx.workspace.workspaceId, { limit: 10 })
      return rows?.[0]?.status === 'completed' && rows
    }, { what: 'the erasure completed' })
    expect(erasure.counts?.messages).toBe(1)
    const listed = (await user.get('/dashboard/privacy')).body
    expect(listed).toContain(`data-erasure-id="${erasure.id}"`)
    expect(listed).toContain('1 records')
    expect(listed).not.toContain(to)
    expect(await dashboardActions()).toContain('erasure.requested')
  })

  it('erases the person of a conversation from its page: the conversation goes with them', async () => {
    const user = await browser()
    const from = '15550303333'
    const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from, payload: { body: 'please forget me' } })
    await waitFor(async () => await ctx.gateway.app.inbound.find(ctx.workspace.workspaceId, { wamid }), { what: 'the inbound message stored' })
    const href = `/dashboard/conversations/${NUMBER}/${from}`
    await waitFor(async () => (await user.get(href)).statusCode === 200, { what: 'the conversation' })
    const thread = (await user.get(href)).body
    expect(thread).toContain(`action="${href}/erase"`)
    const asked = await user.post(`${href}/erase`, {}, { from: href })
    expect(asked.statusCode).toBe(303)
    expect(asked.headers.location).toBe('/dashboard/privacy?done=erasure-requested')
    await waitFor(async () => (await ctx.gateway.app.erasures.list(ctx.workspace.workspaceId, { limit: 1 }))?.[0]?.status === 'completed', { what: 'the erasure completed' })
    expect(await ctx.gateway.app.conversations.one(ctx.workspace.workspaceId, NUMBER, from)).toBeUndefined()
    expect((await user.get(href)).statusCode).toBe(404)
    expect(await ctx.gateway.app.inbound.find(ctx.workspace.workspaceId, { wamid })).toBeFalsy()
    // a person with no conversation here cannot be erased through this URL
    expect((await user.post(`/dashboard/conversations/${NUMBER}/15550309999/erase`, {}, { from: '/dashboard/privacy' })).statusCode).toBe(404)
  })
})
