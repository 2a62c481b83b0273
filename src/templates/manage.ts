import { audit, type Who } from '../access/audit.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { invalidTemplate, noActiveConnection, notFound, templateEditLimit, templateExists, templateNameLocked, templateNotEditable } from '../errors.js'
import { upstreamFailure } from '../media/deps.js'
import type { Stores } from '../stores.js'
import type { Template } from '../store/templates.js'
import type { UpstreamClient } from '../upstream/client.js'
import { UpstreamError } from '../upstream/errors.js'
import { isEditable, LOCK_MS, locksName, nextEditAt } from './edit-limits.js'
import { CATEGORIES, componentsProblems, formatOf, templateProblems, type Problem } from './rules.js'

export interface TemplateDeps {
  stores: Pick<Stores, 'connections' | 'templates' | 'templateChanges'>
  cipher: TokenCipher
  upstream: Pick<UpstreamClient, 'createTemplate' | 'editTemplate' | 'deleteTemplate' | 'templateStatus'>
}

export interface TemplateDraft {
  name: string
  language: string
  category: string
  parameter_format?: string
  components: unknown[]
  allow_category_change?: boolean
}

// Meta's answer when the name exists in that language (upstream-facts.md 8.1)
const EXISTS_SUBCODE = 2388024

/** The workspace's WABA and its token: every management call needs the connection (409 without one). */
export async function connectionOf (deps: Pick<TemplateDeps, 'stores' | 'cipher'>, workspaceId: string): Promise<{ wabaId: string, token: string }> {
  const active = await deps.stores.connections.active(workspaceId)
  if (!active) throw noActiveConnection()
  return { wabaId: active.connection.wabaId, token: deps.cipher.decrypt(active.connection.accessToken) }
}

function refuse (problems: Problem[]): void {
  if (problems.length > 0) throw invalidTemplate(problems[0], problems.length - 1)
}

/** Create (CONTRACT.md 20): the rules, the catalog and the name lock, then the upstream; 201 with T. */
export async function createTemplate (deps: TemplateDeps, workspaceId: string, draft: unknown, who: Who): Promise<Template> {
  refuse(templateProblems(draft))
  const template = draft as TemplateDraft
  const { wabaId, token } = await connectionOf(deps, workspaceId)
  if ((await deps.stores.templates.byName(workspaceId, template.name)).some(known => known.language === template.language)) throw templateExists(template.name, template.language)
  const freesAt = (await deps.stores.templateChanges.locks(wabaId, [template.name])).get(template.name)
  if (freesAt) throw templateNameLocked(template.name, freesAt)
  let answer: Awaited<ReturnType<TemplateDeps['upstream']['createTemplate']>>
  try {
    answer = await deps.upstream.createTemplate(wabaId, token, { ...template })
  } catch (error) {
    if (error instanceof UpstreamError && error.details.subcode === EXISTS_SUBCODE) throw templateExists(template.name, template.language)
    throw upstreamFailure(error, 'template')
  }
  return await deps.stores.templateChanges.created({
    workspaceId, wabaId, upstreamId: String(answer.id), name: template.name, language: template.language, status: answer.status ?? 'PENDING',
    category: (answer.category ?? template.category).toUpperCase(), parameterFormat: formatOf(template.parameter_format).toUpperCase(), components: template.components
  }, audit.of(who, 'template.created', (row: Template) => ({ workspaceId, target: { kind: 'template', id: row.id } })))
}

/** The checks an edit must pass before anything goes upstream, for the API and the plan alike. */
export function editRefusal (template: Template, change: { components?: unknown, category?: unknown }, edits: readonly Date[], now = new Date()): Error | undefined {
  if (!isEditable(template.status)) return templateNotEditable(template.status)
  const category = change.category === undefined ? template.category ?? '' : String(change.category).toUpperCase()
  if (template.status === 'APPROVED' && change.category !== undefined && category !== template.category) {
    return invalidTemplate({ field: 'category', error: `the category of an APPROVED template cannot change (it is ${template.category})` })
  }
  const problems: Problem[] = change.category !== undefined && !(CATEGORIES as readonly string[]).includes(category) ? [{ field: 'category', error: `category is one of ${CATEGORIES.join(', ')}` }] : []
  problems.push(...componentsProblems(change.components, formatOf(template.parameterFormat), category))
  if (problems.length > 0) return invalidTemplate(problems[0], problems.length - 1)
  const next = template.status === 'APPROVED' ? nextEditAt(edits, now) : null
  return next ? templateEditLimit(next) : undefined
}

/** Edit (CONTRACT.md 20): by the upstream id; nothing goes upstream when a check refuses. */
export async function editTemplate (deps: TemplateDeps, workspaceId: string, upstreamId: string, change: { components?: unknown, category?: unknown }, who: Who): Promise<Template> {
  const template = await deps.stores.templates.byUpstreamId(workspaceId, upstreamId) ?? fail(notFound('No template with this id in your workspace'))
  const edits = (await deps.stores.templateChanges.editsOf(template.wabaId, [upstreamId])).get(upstreamId) ?? []
  const refusal = editRefusal(template, change, edits)
  if (refusal) throw refusal
  const { token } = await connectionOf(deps, workspaceId)
  const category = change.category !== undefined && template.status !== 'APPROVED' ? String(change.category).toUpperCase() : template.category
  try {
    await deps.upstream.editTemplate(upstreamId, token, { components: change.components, ...(category !== template.category && { category }) })
  } catch (error) {
    throw upstreamFailure(error, 'template edit')
  }
  return await deps.stores.templateChanges.edited(template, { components: change.components as unknown[], category, status: 'PENDING' },
    audit.of(who, 'template.updated', (row: Template) => ({ workspaceId, target: { kind: 'template', id: row.id } })))
}

/** Delete (CONTRACT.md 20): one language by its hsm_id, or every language by name; the name is then locked when one had been approved. */
export async function deleteTemplates (deps: TemplateDeps, workspaceId: string, name: string, language: string | undefined, who: Who): Promise<number> {
  const doomed = (await deps.stores.templates.byName(workspaceId, name)).filter(template => language === undefined || template.language === language)
  if (doomed.length === 0) throw notFound(`No template ${name}${language === undefined ? '' : ` in ${language}`}`)
  const { wabaId, token } = await connectionOf(deps, workspaceId)
  try {
    await deps.upstream.deleteTemplate(wabaId, token, name, language === undefined ? undefined : doomed[0].upstreamId ?? undefined)
  } catch (error) {
    throw upstreamFailure(error, 'template deletion')
  }
  const freesAt = doomed.some(template => locksName(template.status)) ? new Date(Date.now() + LOCK_MS) : null
  return await deps.stores.templateChanges.deleted(doomed, freesAt, who && (async (tx, gone) => {
    for (const template of gone) await audit.record(tx, { ...who, workspaceId, action: 'template.deleted', target: { kind: 'template', id: template.id } })
  }))
}

function fail (error: Error): never {
  throw error
}
