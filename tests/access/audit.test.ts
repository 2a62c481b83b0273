import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { auditLog } from '../../db/schema.js'
import { actors, audit, publicAuditEntry, type AuditEntry } from '../../src/access/audit.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { Browser, csrfOf, userIn, type Login } from '../dashboard/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

/** Every change made in the dashboard lands in the audit log, in the change's transaction, and nothing can take it out. */
describe('the audit log', () => {
  const ctx = useGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } })
  let login: Login
  let browser: Browser
  const db = () => ctx.gateway.app.database.db
  const entries = async (workspaceId = ctx.workspace.workspaceId) => (await ctx.gateway.app.auditLog.page(workspaceId, { limit: 1000 })).map(publicAuditEntry)

  beforeAll(async () => {
    login = await userIn(ctx.gateway.app, ctx.workspace.workspaceId)
    browser = await Browser.signIn(ctx.gateway.app, login)
  })

  /** A form post with repeated fields (checkbox groups), as the browser sends it. */
  async function postForm (url: string, fields: [string, string][]) {
    const token = csrfOf((await browser.get('/dashboard/keys')).body)
    return await ctx.gateway.app.inject({
      method: 'POST', url, payload: new URLSearchParams([...fields, ['_csrf', token]]).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookie }
    })
  }

  it('records the dashboard\'s changes with the user, the address and the target, newest first', async () => {
    const user = (await ctx.gateway.app.users.byEmail(login.email))!
    const created = await postForm('/dashboard/keys', [['name', 'audited'], ['scopes_shown', '1'], ['scopes', 'messages:read']])
    expect(created.statusCode).toBe(201)
    const key = (await ctx.gateway.app.keys.list(ctx.workspace.workspaceId)).find(candidate => candidate.name === 'audited')!
    expect((await browser.post(`/dashboard/keys/${key.id}/revoke`, {}, { from: '/dashboard/keys' })).statusCode).toBe(303)
    expect((await browser.post('/dashboard/webhooks', { url: 'http://127.0.0.1:9/hook', events: 'message.sent' }, { from: '/dashboard/webhooks' })).statusCode).toBe(201)
    const [endpoint] = await ctx.gateway.app.webhooks.endpoints(ctx.workspace.workspaceId)
    expect((await browser.post(`/dashboard/webhooks/${endpoint.id}/remove`, {}, { from: '/dashboard/webhooks' })).statusCode).toBe(303)
    expect((await browser.post('/dashboard/disconnect', {}, { from: '/dashboard/connection' })).statusCode).toBe(303)
    const account = defaultAccount()
    expect((await browser.post('/dashboard/connection', { waba_id: account.wabaId, access_token: account.accessToken }, { from: '/dashboard/connection' })).statusCode).toBe(303)
    const connection = (await ctx.gateway.app.connections.active(ctx.workspace.workspaceId))!.connection

    const dashboard = { kind: 'dashboard', id: user.id }
    const recorded = (await entries()).filter(entry => entry.actor.kind === 'dashboard')
    expect(recorded.map(({ action, target }) => ({ action, target }))).toEqual([
      { action: 'connection.connected', target: { kind: 'connection', id: connection.id } },
      { action: 'connection.disconnected', target: { kind: 'connection', id: ctx.workspace.connection.connection_id } },
      { action: 'webhook_endpoint.removed', target: { kind: 'webhook_endpoint', id: endpoint.id } },
      { action: 'webhook_endpoint.added', target: { kind: 'webhook_endpoint', id: endpoint.id } },
      { action: 'key.revoked', target: { kind: 'key', id: key.id } },
      { action: 'key.created', target: { kind: 'key', id: key.id } },
      { action: 'user.signed_in', target: { kind: 'user', id: user.id } }
    ])
    for (const entry of recorded) {
      expect(entry).toEqual({ at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), actor: dashboard, action: entry.action, target: entry.target, ip: '127.0.0.1' })
    }
  })

  it('refuses in the key form a number the workspace has not connected, and a form with every scope unchecked', async () => {
    const before = (await ctx.gateway.app.keys.list(ctx.workspace.workspaceId)).length
    const foreign = await postForm('/dashboard/keys', [['name', 'foreign'], ['scopes_shown', '1'], ['scopes', 'messages:send'], ['phone_number_ids', '999']])
    expect(foreign.statusCode).toBe(422)
    expect(foreign.body).toContain('&quot;999&quot; is not connected')
    const none = await postForm('/dashboard/keys', [['name', 'none'], ['scopes_shown', '1']])
    expect(none.statusCode).toBe(422)
    expect(none.body).toContain('Choose at least one scope.')
    expect((await ctx.gateway.app.keys.list(ctx.workspace.workspaceId)).length).toBe(before)
  })

  it('records a change once: revoking or removing again adds nothing', async () => {
    const { key } = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'twice')
    const before = (await entries()).length
    for (let i = 0; i < 2; i++) expect((await browser.post(`/dashboard/keys/${key.id}/revoke`, {}, { from: '/dashboard/keys' })).statusCode).toBe(303)
    expect((await entries()).length).toBe(before + 1)
  })

  it('keeps secrets, tokens, emails and passwords out of every entry', async () => {
    const created = await postForm('/dashboard/keys', [['name', 'secretive'], ['scopes_shown', '1'], ['scopes', 'messages:send']])
    const secret = /id="new-secret" type="text" value="(obk_live_[^"]+)"/.exec(created.body)![1]
    const stored = JSON.stringify(rowsOf(await db().execute(sql`select * from audit_log`)))
    for (const value of [secret, secret.slice(secret.lastIndexOf('_') + 1), login.email, login.password, defaultAccount().accessToken]) expect(stored).not.toContain(value)
  })

  it('shows Settings → Audit log a page at a time, newest first', async () => {
    const workspace = await ctx.gateway.app.workspaces.create('busy', 'growth')
    const who = actors.dashboard('usr_someone', '192.0.2.7')
    await db().transaction(async tx => {
      for (let i = 0; i < 60; i++) await audit.record(tx, { ...who, workspaceId: workspace.id, action: 'key.created', target: { kind: 'key', id: `key_${String(i).padStart(2, '0')}` } })
    })
    const reader = await Browser.signIn(ctx.gateway.app, await userIn(ctx.gateway.app, workspace.id))
    const first = await reader.get('/dashboard/audit')
    expect(first.statusCode).toBe(200)
    expect(first.body).toContain('aria-current="page">Audit log')
    const targets = (html: string) => [...html.matchAll(/<code>(key_\d\d)<\/code>/g)].map(match => match[1])
    // the reader's own sign-in is the newest
    expect(first.body.indexOf('user.signed_in')).toBeLessThan(first.body.indexOf('key.created'))
    expect(targets(first.body)).toEqual(Array.from({ length: 49 }, (_, i) => `key_${String(59 - i).padStart(2, '0')}`))
    const older = /href="\/dashboard\/audit\?before=(\d+)"/.exec(first.body)![1]
    const second = await reader.get(`/dashboard/audit?before=${older}`)
    expect(targets(second.body)).toEqual(Array.from({ length: 11 }, (_, i) => `key_${String(10 - i).padStart(2, '0')}`))
    expect(second.body).not.toContain('?before=')
    expect(second.body).toContain('192.0.2.7')
    expect((await reader.get('/dashboard/audit?before=abc')).statusCode).toBe(422)
    // another workspace's entries are not shown
    expect(first.body).not.toContain(ctx.workspace.connection.connection_id)
  })

  it('is append-only in the database: update, delete and truncate are refused', async () => {
    expect((await entries()).length).toBeGreaterThan(0)
    for (const statement of [sql`update audit_log set action = 'key.created'`, sql`delete from audit_log`, sql`truncate audit_log`]) {
      await expect(db().execute(statement)).rejects.toThrow()
    }
    const [row] = rowsOf<{ count: string | number }>(await db().execute(sql`select count(*) as count from audit_log`))
    expect(Number(row.count)).toBe((await db().select().from(auditLog)).length)
  })

  it('commits an entry with its change or not at all', async () => {
    const { key } = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'atomic')
    // an entry that cannot be written (no such workspace) takes its change down with it
    const broken = audit.of(actors.cli(), 'key.revoked', () => ({ workspaceId: 'ws_missing', target: { kind: 'key', id: key.id } }))
    await expect(ctx.gateway.app.keys.revoke(key.id, broken)).rejects.toThrow()
    expect((await ctx.gateway.app.keys.get(key.id))?.revokedAt).toBeNull()
    // a change that fails after its entry leaves no entry
    const before = (await entries()).length
    await expect(db().transaction(async tx => {
      await audit.record(tx, { ...actors.cli(), workspaceId: ctx.workspace.workspaceId, action: 'key.revoked', target: { kind: 'key', id: key.id } })
      throw new Error('the change failed')
    })).rejects.toThrow('the change failed')
    expect((await entries()).length).toBe(before)
  })

  it('records an API key as the actor, for the routes that change things with one', async () => {
    const entry: AuditEntry = { ...actors.key({ apiKey: { id: ctx.workspace.apiKeyId }, ip: '198.51.100.4' }), workspaceId: ctx.workspace.workspaceId, action: 'suppression.added', target: { kind: 'suppression', id: 'sup_1' } }
    await db().transaction(async tx => { await audit.record(tx, entry) })
    expect((await entries())[0]).toMatchObject({ actor: { kind: 'key', id: ctx.workspace.apiKeyId }, action: 'suppression.added', ip: '198.51.100.4' })
  })

  it('has no update or delete of the audit log anywhere in the code', () => {
    const sources = ['src', 'plugins', 'routes', 'db'].flatMap(dir => files(join(root, dir))).filter(path => /\.(ts|sql)$/.test(path))
    const offending = sources.filter(path => !path.endsWith('0010_access.sql'))
      .filter(path => /(update|delete(\s+from)?|truncate)\s*\(?\s*("?audit_log"?|auditLog)\b/i.test(readFileSync(path, 'utf8')))
    expect(offending).toEqual([])
  })
})

function files (dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : [path]
  })
}
