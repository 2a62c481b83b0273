import { AppError, invalidRequest } from '../errors.js'
import type { Template } from '../store/templates.js'

/** What a campaign needs to know of its template, checked once for the whole campaign (CONTRACT.md 14, 15). */
export interface CampaignTemplate {
  name: string
  language: string
  category: string | null
  /** the body's placeholders: named ones by name, positional ones as a count; null when the catalog does not know the template's text */
  body: { named: string[] } | { count: number } | null
}

export const templateNotFound = (name: string) => new AppError(422, 'template_not_found', `template ${name} is not in the template catalog of this workspace`, { field: 'template' })
export const templateNotApproved = (name: string, language: string, status: string) =>
  new AppError(422, 'template_not_approved', `template ${name} in ${language} is ${status}, not APPROVED, and cannot be sent`, { field: 'template' })

/**
 * The catalog's word on the template: known (else template_not_found), in the given language or its
 * only one, and APPROVED (else template_not_approved naming the status).
 */
export function checkTemplate (name: string, language: string | undefined, synced: Template[]): CampaignTemplate {
  if (synced.length === 0) throw templateNotFound(name)
  let template: Template | undefined
  if (language !== undefined) {
    template = synced.find(candidate => candidate.language === language)
    if (!template) throw templateNotFound(`${name} in ${language}`)
  } else if (synced.length === 1) {
    template = synced[0]
  } else {
    const choices = synced.map(candidate => candidate.language).sort()
    throw invalidRequest(`language is required: template ${name} exists in several languages: ${choices.join(', ')}`, 'language')
  }
  if (template.status !== 'APPROVED') throw templateNotApproved(name, template.language, template.status)
  return { name, language: template.language, category: template.category, body: bodyPlaceholders(template.components) }
}

/** The distinct `{{1}}` or `{{name}}` placeholders of the BODY component's text. */
export function bodyPlaceholders (components: unknown[]): CampaignTemplate['body'] {
  const body = components.find((component): component is { type: string, text?: unknown } =>
    typeof component === 'object' && component !== null && String((component as { type?: unknown }).type).toUpperCase() === 'BODY')
  if (!body || typeof body.text !== 'string') return components.length === 0 ? null : { count: 0 }
  const names = [...new Set([...body.text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map(match => match[1]))]
  if (names.length > 0 && names.every(found => /^\d+$/.test(found))) return { count: names.length }
  return names.length === 0 ? { count: 0 } : { named: names }
}
