import { checkTemplateParameters } from '../audience/template-guard.js'
import { resolveTemplate } from '../messages/template.js'
import type { Template } from '../store/templates.js'

/** What a campaign needs to know of its template, checked once for the whole campaign (CONTRACT.md 14, 15). */
export interface CampaignTemplate {
  name: string
  language: string
  category: string | null
  /** the body's placeholders: named ones by name, positional ones as a count; null when the catalog does not know the template's text */
  body: { named: string[] } | { count: number } | null
}

/**
 * Section 14's template guard, as a send's (src/messages/template.ts, src/audience/template-guard.ts):
 * an unknown name (after the caller's re-sync) → template_not_found; the language resolved; a status
 * that never lets it go → template_not_approved (PAUSED passes: its messages wait, held); then the
 * placeholders. A campaign fills the body's only (one variable each), so a template whose header
 * text or URL buttons have placeholders is a 422 template_parameters naming the expected count.
 */
export function checkTemplate (name: string, language: string | undefined, synced: Template[]): CampaignTemplate {
  const { code, pair } = resolveTemplate(name, language, synced)
  const body = pair ? bodyPlaceholders(pair.components) : null
  if (pair) {
    const count = body === null ? 0 : 'named' in body ? body.named.length : body.count
    const parameters = Array.from({ length: count }, () => ({ type: 'text' }))
    checkTemplateParameters(name, code, pair.components, count === 0 ? [] : [{ type: 'body', parameters }])
  }
  return { name, language: code, category: (pair ?? synced[0]).category, body }
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
