import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { actors } from '../../src/access/audit.js'
import { applyFile, planFile } from '../../src/templates/apply.js'
import { templatesOfFile } from '../../src/templates/file.js'
import { useGateway } from '../helpers/use-gateway.js'
import { orderUpdate, ownWabaWorkspace } from './helpers.js'

const who = actors.cli()

/** CONTRACT.md 20, as code: plan and apply over a file, round trips that end unchanged. */
describe('templates as code: plan and apply', () => {
  const ctx = useGateway({ emulator: { templateReviewMs: 50 }, plan: null })
  const deps = () => ({ stores: ctx.gateway.app, cipher: ctx.gateway.app.cipher, upstream: ctx.gateway.app.upstream })
  const shown = (plan: Awaited<ReturnType<typeof planFile>>) => { const { steps, deletions, ...rest } = plan; return rest }
  const file = (prefix: string) => [orderUpdate(`${prefix}_one`), orderUpdate(`${prefix}_two`, { category: 'MARKETING' }), orderUpdate(`${prefix}_one`, { language: 'de' })]

  it('creates what the catalog lacks, then the same file is unchanged, also written in other case and key order', async () => {
    const { workspaceId } = await ownWabaWorkspace(ctx.gateway)
    const templates = file('code_a')
    expect(shown(await planFile(deps(), workspaceId, templates, false))).toEqual({
      ok: true, create: templates.map(({ name, language }) => ({ name, language })), update: [], unchanged: 0, problems: []
    })
    const applied = await applyFile(deps(), workspaceId, templates, { prune: false, waitSeconds: 20 }, who)
    expect(applied).toEqual({ ok: true, results: templates.map(({ name, language }) => ({ name, language, action: 'create', status: 'APPROVED' })) })
    expect(shown(await planFile(deps(), workspaceId, templates, false))).toMatchObject({ ok: true, create: [], update: [], unchanged: 3 })

    const shuffled = templatesOfFile(stringify({ templates: templates.map(template => reorder(lowerEnums(template))) }))
    expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(templates))
    expect(shown(await planFile(deps(), workspaceId, shuffled, false))).toMatchObject({ ok: true, create: [], update: [], unchanged: 3 })
    expect(await applyFile(deps(), workspaceId, shuffled, { prune: false }, who)).toEqual({ ok: true, results: [] })
  })

  it('updates a changed template, and a second change within 24 h is a problem naming the edit limit', async () => {
    const { workspaceId } = await ownWabaWorkspace(ctx.gateway)
    const templates = file('code_b')
    await applyFile(deps(), workspaceId, templates, { prune: false, waitSeconds: 20 }, who)
    templates[0].components[1] = { type: 'BODY', text: 'Hello {{1}}, order {{2}} left us.', example: { body_text: [['Pablo', '1']] } }
    expect(shown(await planFile(deps(), workspaceId, templates, false))).toMatchObject({ ok: true, create: [], update: [{ name: 'code_b_one', language: 'en_US' }], unchanged: 2 })
    expect(await applyFile(deps(), workspaceId, templates, { prune: false, waitSeconds: 20 }, who)).toEqual({ ok: true, results: [{ name: 'code_b_one', language: 'en_US', action: 'update', status: 'APPROVED' }] })
    expect(shown(await planFile(deps(), workspaceId, templates, false))).toMatchObject({ ok: true, unchanged: 3 })

    templates[0].components[1] = { type: 'BODY', text: 'Once more {{1}} {{2}}', example: { body_text: [['a', 'b']] } }
    const limited = shown(await planFile(deps(), workspaceId, templates, false))
    expect(limited.ok).toBe(false)
    expect(limited.problems).toEqual([{ name: 'code_b_one', language: 'en_US', field: 'components', error: expect.stringMatching(/^template_edit_limit: .*\d{4}-\d\d-\d\dT/) }])
    const before = ctx.gateway.emulator.requests.length
    expect(await applyFile(deps(), workspaceId, templates, { prune: false }, who)).toMatchObject({ ok: false, problems: limited.problems })
    expect(ctx.gateway.emulator.requests.slice(before).filter(request => request.method !== 'GET')).toEqual([])
  })

  it('prunes what the file no longer holds, then plans unchanged; the pruned approved name is locked', async () => {
    const { workspaceId } = await ownWabaWorkspace(ctx.gateway)
    const templates = file('code_c')
    await applyFile(deps(), workspaceId, templates, { prune: false, waitSeconds: 20 }, who)
    const kept = templates.slice(0, 2)
    expect(shown(await planFile(deps(), workspaceId, kept, false))).toEqual({ ok: true, create: [], update: [], unchanged: 2, problems: [] })
    const pruning = shown(await planFile(deps(), workspaceId, kept, true))
    expect(pruning.delete).toEqual([{ name: 'code_c_one', language: 'de' }])
    expect(await applyFile(deps(), workspaceId, kept, { prune: true }, who)).toEqual({ ok: true, results: [{ name: 'code_c_one', language: 'de', action: 'delete', status: 'DELETED' }] })
    expect(shown(await planFile(deps(), workspaceId, kept, true))).toEqual({ ok: true, create: [], update: [], unchanged: 2, delete: [], problems: [] })
    const back = shown(await planFile(deps(), workspaceId, templates, true))
    expect(back.problems).toEqual([{ name: 'code_c_one', language: 'de', field: 'name', error: expect.stringMatching(/^template_name_locked: /) }])
  })

  it('lists every problem of a file with the template and the path, and apply refuses it without a call upstream', async () => {
    const { workspaceId } = await ownWabaWorkspace(ctx.gateway)
    const bad = orderUpdate('code_d_bad')
    bad.components[2] = { type: 'FOOTER', text: 'Ref {{1}}' }
    const templates = [orderUpdate('code_d_fine'), bad, orderUpdate('code_d_fine'), { name: 'code_d_nobody', language: 'en_US', category: 'UTILITY', components: [] }]
    const plan = shown(await planFile(deps(), workspaceId, templates, false))
    expect(plan).toEqual({
      ok: false,
      create: [{ name: 'code_d_fine', language: 'en_US' }],
      update: [],
      unchanged: 0,
      problems: [
        { name: 'code_d_bad', language: 'en_US', field: 'components[2].text', error: 'a footer has no placeholders' },
        { name: 'code_d_fine', language: 'en_US', field: 'name', error: expect.stringContaining('appears twice') },
        { name: 'code_d_nobody', language: 'en_US', field: 'components', error: expect.any(String) }
      ]
    })
    const before = ctx.gateway.emulator.requests.length
    expect((await applyFile(deps(), workspaceId, templates, { prune: false }, who)).ok).toBe(false)
    expect(ctx.gateway.emulator.requests.length).toBe(before)
  })

  it('apply --wait ends not ok when a template is rejected', async () => {
    const { workspaceId } = await ownWabaWorkspace(ctx.gateway)
    const applied = await applyFile(deps(), workspaceId, [orderUpdate('code_e_fine'), orderUpdate('reject_code_e')], { prune: false, waitSeconds: 20 }, who)
    expect(applied).toEqual({ ok: false, results: [
      { name: 'code_e_fine', language: 'en_US', action: 'create', status: 'APPROVED' },
      { name: 'reject_code_e', language: 'en_US', action: 'create', status: 'REJECTED' }
    ] })
  })
})

function lowerEnums (value: unknown, key?: string): any {
  if (Array.isArray(value)) return value.map(item => lowerEnums(item))
  if (typeof value === 'string') return key !== undefined && ['type', 'format', 'category'].includes(key) ? value.toLowerCase() : value
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, lowerEnums(item, name)]))
}

function reorder (value: unknown): any {
  if (Array.isArray(value)) return value.map(reorder)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).reverse().map(([name, item]) => [name, reorder(item)]))
}
