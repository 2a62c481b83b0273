import { checkTemplateParameters } from '../audience/template-guard.js'
import { invalidRequest, templateNotApproved, templateNotFound } from '../errors.js'
import type { Template } from '../store/templates.js'
import { checkComponents } from './components.js'
import type { SendMessageBody } from './schemas.js'

/** The workspace's synced templates of one name, in every language (an unknown name may re-sync the catalog first). */
export type TemplatesNamed = (name: string) => Promise<Pick<Template, 'name' | 'language' | 'status' | 'components'>[]>
type Synced = Awaited<ReturnType<TemplatesNamed>>[number]

/**
 * The upstream `template` object: name, language resolved from the synced templates, components as
 * given. After the request's own shape, the catalog (CONTRACT.md 14): a name unknown in every
 * language is refused, and a synced pair must get one value per placeholder. Whether its status
 * lets it go is the audience rules' question (src/audience/decide.ts): a queued send of a paused
 * template is accepted and held.
 */
export async function templateContent (body: SendMessageBody, templatesNamed: TemplatesNamed): Promise<Record<string, unknown>> {
  const name = body.template ?? body.template_name
  if (name === undefined) throw invalidRequest('template is required for type template (alias: template_name)', 'template')
  if (body.components) checkComponents(body.components)
  const { code, pair } = resolveTemplate(name, body.language, await templatesNamed(name))
  if (pair) checkTemplateParameters(name, code, pair.components, body.components)
  return { name, language: { code }, ...(body.components && { components: body.components }) }
}

/**
 * The catalog's word on a template before its parameters (CONTRACT.md 14), for a send and for a
 * campaign alike: a name unknown in every language is refused; the language resolved; a status
 * that never lets it go named (PAUSED may pass: a queued send waits for it).
 */
export function resolveTemplate<T extends Synced> (name: string, language: string | undefined, synced: T[]): { code: string, pair?: T } {
  if (synced.length === 0) throw templateNotFound(name)
  const resolved = resolveLanguage(name, language, synced)
  if (resolved.pair && resolved.pair.status !== 'APPROVED' && resolved.pair.status !== 'PAUSED') throw templateNotApproved(name, resolved.code, resolved.pair.status)
  return resolved
}

/**
 * Omitted: the template's only synced language. Given: sent as is, even when not synced (it may be
 * newer than the last sync).
 */
function resolveLanguage<T extends Synced> (name: string, given: string | undefined, synced: T[]): { code: string, pair?: T } {
  if (given !== undefined) return { code: given, pair: synced.find(template => template.language === given) }
  if (synced.length > 1) {
    const choices = synced.map(template => template.status === 'APPROVED' ? template.language : `${template.language} (${template.status})`).sort()
    throw invalidRequest(`language is required: template ${name} exists in several languages: ${choices.join(', ')}`, 'language')
  }
  return { code: synced[0].language, pair: synced[0] }
}
