import { invalidRequest } from '../errors.js'
import type { Template } from '../store/templates.js'
import { checkComponents } from './components.js'
import type { SendMessageBody } from './schemas.js'

/** The workspace's synced templates of one name, in every language. */
export type TemplatesNamed = (name: string) => Promise<Pick<Template, 'name' | 'language' | 'status'>[]>

/** The upstream `template` object: name, language resolved from the synced templates, components as given. */
export async function templateContent (body: SendMessageBody, templatesNamed: TemplatesNamed): Promise<Record<string, unknown>> {
  const name = body.template ?? body.template_name
  if (name === undefined) throw invalidRequest('template is required for type template (alias: template_name)', 'template')
  const code = resolveLanguage(name, body.language, await templatesNamed(name))
  if (body.components) checkComponents(body.components)
  return { name, language: { code }, ...(body.components && { components: body.components }) }
}

/**
 * Omitted: the template's only synced language. Given: sent as is, even when not synced (it may be
 * newer than the last sync), unless that very pair is synced and not approved.
 */
function resolveLanguage (name: string, given: string | undefined, synced: Pick<Template, 'language' | 'status'>[]): string {
  if (given !== undefined) {
    const pair = synced.find(template => template.language === given)
    if (pair) requireApproved(name, pair)
    return given
  }
  if (synced.length === 0) {
    throw invalidRequest(`language is required: template ${name} is not among the synced templates, so its language is unknown (sync templates, or give language such as en_US)`, 'language')
  }
  if (synced.length > 1) {
    const choices = synced.map(template => template.status === 'APPROVED' ? template.language : `${template.language} (${template.status})`).sort()
    throw invalidRequest(`language is required: template ${name} exists in several languages: ${choices.join(', ')}`, 'language')
  }
  requireApproved(name, synced[0])
  return synced[0].language
}

function requireApproved (name: string, template: Pick<Template, 'language' | 'status'>): void {
  if (template.status !== 'APPROVED') {
    throw invalidRequest(`template ${name} in ${template.language} is ${template.status}, not APPROVED, and cannot be sent`, 'template')
  }
}
