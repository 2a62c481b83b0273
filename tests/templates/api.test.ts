import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { orderUpdate, readTemplate, templatesApi } from './helpers.js'

/** CONTRACT.md 20: create, edit and delete from Outbound; the emulator reviews each in a moment. */
describe('templates managed from Outbound', () => {
  const ctx = useGateway({ emulator: { templateReviewMs: 50 } })
  const api = (method: 'GET' | 'POST' | 'DELETE', query = '', payload?: unknown) => templatesApi(ctx.gateway, ctx.workspace, method, query, payload)
  const approved = async (id: string) => await waitFor(async () => (await readTemplate(ctx.gateway, ctx.workspace, id))?.status === 'APPROVED', { what: `template ${id} approved` })

  it('creates a template: 201 PENDING, then APPROVED by the status webhook, with the audit entry and the template.updated path', async () => {
    const created = await api('POST', '', orderUpdate('order_update_a'))
    expect(created.statusCode).toBe(201)
    const { template } = created.json()
    expect(template).toMatchObject({ id: expect.any(String), name: 'order_update_a', language: 'en_US', category: 'UTILITY', status: 'PENDING', parameter_format: 'positional', quality: null, rejected_reason: null })
    expect(template.components).toHaveLength(4)
    await approved(template.id)
    const listed = (await api('GET', '?name=order_update_a')).json()
    expect(listed).toMatchObject({ ok: true, templates: [{ id: template.id, status: 'APPROVED' }], next_cursor: null })
    const audit = await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 20 })
    expect(audit.find(row => row.action === 'template.created')).toMatchObject({ actorKind: 'key', actorId: ctx.workspace.apiKeyId, targetKind: 'template' })
    const upstream = ctx.gateway.emulator.requests.find(request => request.method === 'POST' && request.path.endsWith('/message_templates'))
    expect(upstream?.body).toMatchObject({ name: 'order_update_a', category: 'UTILITY' })
  })

  it('refuses a break of the rules with invalid_template naming the JSON path, and nothing goes upstream', async () => {
    const before = ctx.gateway.emulator.requests.length
    const bad = orderUpdate('order_update_bad')
    ;(bad.components[3] as { buttons: Array<{ text: string }> }).buttons[2].text = 'x'.repeat(26)
    const refused = await api('POST', '', bad)
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({ ok: false, code: 'invalid_template', field: 'components[3].buttons[2].text' })
    expect(refused.json().error).toMatch(/at most 25/)
    const noName = await api('POST', '', orderUpdate('Order Update'))
    expect(noName.json()).toMatchObject({ code: 'invalid_template', field: 'name' })
    expect(ctx.gateway.emulator.requests.slice(before).filter(request => request.method !== 'GET')).toEqual([])
  })

  it('409 template_exists for a name and language in the catalog', async () => {
    expect((await api('POST', '', orderUpdate('order_update_twice'))).statusCode).toBe(201)
    const again = await api('POST', '', orderUpdate('order_update_twice'))
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('template_exists')
    expect((await api('POST', '', orderUpdate('order_update_twice', { language: 'de' }))).statusCode).toBe(201)
  })

  it('a reject_ name ends REJECTED with INVALID_FORMAT, and a rejected template may be edited more than once a day', async () => {
    const { template } = (await api('POST', '', orderUpdate('reject_order_update'))).json()
    await waitFor(async () => (await readTemplate(ctx.gateway, ctx.workspace, template.id))?.status === 'REJECTED', { what: 'rejected' })
    expect((await readTemplate(ctx.gateway, ctx.workspace, template.id)).rejected_reason).toBe('INVALID_FORMAT')
    for (const text of ['Second try {{1}}', 'Third try {{1}}']) {
      const edited = await api('POST', `?id=${template.id}`, { components: [{ type: 'BODY', text, example: { body_text: [['x']] } }] })
      expect(edited.statusCode).toBe(200)
      expect(edited.json().template).toMatchObject({ status: 'PENDING', rejected_reason: null })
      await waitFor(async () => (await readTemplate(ctx.gateway, ctx.workspace, template.id))?.status === 'REJECTED', { what: 'rejected again' })
    }
  })

  it('edits an APPROVED template once in 24 h: the second edit is 422 template_edit_limit with next_edit_at; a PENDING one is not editable', async () => {
    const { template } = (await api('POST', '', orderUpdate('order_update_edit'))).json()
    const pending = await api('POST', `?id=${template.id}`, { components: orderUpdate('x').components })
    expect(pending.statusCode).toBe(422)
    expect(pending.json()).toMatchObject({ code: 'template_not_editable' })
    expect(pending.json().error).toContain('PENDING')
    await approved(template.id)
    const components = [{ type: 'BODY', text: 'Order {{1}} is on its way.', example: { body_text: [['860198']] } }]
    const edited = await api('POST', `?id=${template.id}`, { components })
    expect(edited.statusCode).toBe(200)
    expect(edited.json().template.components).toEqual(components)
    await approved(template.id)
    const before = ctx.gateway.emulator.requests.length
    const limited = await api('POST', `?id=${template.id}`, { components: orderUpdate('x').components })
    expect(limited.statusCode).toBe(422)
    const envelope = limited.json()
    expect(envelope.code).toBe('template_edit_limit')
    expect(Date.parse(envelope.next_edit_at) - Date.now()).toBeGreaterThan(23 * 3600_000)
    expect(envelope.error).toContain(envelope.next_edit_at)
    expect(ctx.gateway.emulator.requests.slice(before).filter(request => request.method === 'POST')).toEqual([])
    const category = await api('POST', `?id=${template.id}`, { components, category: 'MARKETING' })
    expect(category.json()).toMatchObject({ code: 'invalid_template', field: 'category' })
    expect((await api('POST', '?id=999', { components })).statusCode).toBe(404)
  })

  it('an approved template edited ten times in 30 days may not be edited again for 30 days after the first of them', async () => {
    const { template } = (await api('POST', '', orderUpdate('order_update_ten'))).json()
    await approved(template.id)
    const row = await ctx.gateway.app.templates.byUpstreamId(ctx.workspace.workspaceId, template.id)
    const { templateEdits } = await import('../../db/schema.js')
    const days = Array.from({ length: 10 }, (_, index) => new Date(Date.now() - (29 - index) * 24 * 3600_000))
    await ctx.gateway.app.database.db.insert(templateEdits).values(days.map(at => ({ wabaId: row!.wabaId, upstreamId: template.id, at })))
    const limited = (await api('POST', `?id=${template.id}`, { components: orderUpdate('x').components })).json()
    expect(limited.code).toBe('template_edit_limit')
    expect(Date.parse(limited.next_edit_at)).toBe(days[0].getTime() + 30 * 24 * 3600_000)
  })

  it('deletes one language or every language; the name of an approved one is then locked for 30 days (422 template_name_locked with frees_at)', async () => {
    const a = (await api('POST', '', orderUpdate('order_update_gone'))).json().template
    const b = (await api('POST', '', orderUpdate('order_update_gone', { language: 'de' }))).json().template
    await approved(a.id)
    await approved(b.id)
    const one = await api('DELETE', '?name=order_update_gone&language=de')
    expect(one.json()).toEqual({ ok: true, deleted: 1 })
    expect(ctx.gateway.emulator.requests.at(-1)?.query).toMatchObject({ name: 'order_update_gone', hsm_id: b.id })
    expect((await api('DELETE', '?name=order_update_gone')).json()).toEqual({ ok: true, deleted: 1 })
    expect((await api('DELETE', '?name=order_update_gone')).statusCode).toBe(404)
    const locked = await api('POST', '', orderUpdate('order_update_gone'))
    expect(locked.statusCode).toBe(422)
    const envelope = locked.json()
    expect(envelope.code).toBe('template_name_locked')
    expect(Date.parse(envelope.frees_at) - Date.now()).toBeGreaterThan(29 * 24 * 3600_000)
    expect(envelope.error).toContain(envelope.frees_at)
    const audit = await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 50 })
    expect(audit.filter(row => row.action === 'template.deleted')).toHaveLength(2)
  })

  it('a never-approved template deleted leaves its name free', async () => {
    const { template } = (await api('POST', '', orderUpdate('reject_then_gone'))).json()
    await waitFor(async () => (await readTemplate(ctx.gateway, ctx.workspace, template.id))?.status === 'REJECTED', { what: 'rejected' })
    expect((await api('DELETE', '?name=reject_then_gone')).json().deleted).toBe(1)
    expect((await api('POST', '', orderUpdate('reject_then_gone'))).statusCode).toBe(201)
  })

  it('pages the catalog by name and language, and needs the templates scopes', async () => {
    const first = (await api('GET', '?limit=1')).json()
    expect(first.templates).toHaveLength(1)
    const second = (await api('GET', `?limit=1&cursor=${first.next_cursor}`)).json()
    expect(second.templates[0].name >= first.templates[0].name).toBe(true)
    expect(second.templates[0].id).not.toBe(first.templates[0].id)
    expect((await api('GET', '?cursor=nonsense')).json()).toMatchObject({ code: 'invalid_request', field: 'cursor' })
    const { secret } = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'read only', { scopes: ['templates:read'] })
    const reader = { authorization: `Bearer ${secret}` }
    expect((await templatesApi(ctx.gateway, reader, 'GET')).statusCode).toBe(200)
    const refused = await templatesApi(ctx.gateway, reader, 'POST', '', orderUpdate('order_update_scope'))
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'insufficient_scope' })
    expect(refused.json().error).toContain('templates:write')
    expect((await templatesApi(ctx.gateway, reader, 'DELETE', '?name=x')).statusCode).toBe(403)
  })
})
