import { findTemplate, type StoredTemplate, type WabaState } from './accounts.js'
import { GraphError } from './graph-error.js'
import { isObject } from './json.js'
import type { OutgoingMessage } from './validate-message.js'

const REFUSALS: Record<string, number> = { PAUSED: 132015, DISABLED: 132016 }

/** The template must exist for this WABA in that language, be approved, and get one parameter per placeholder. */
export function checkTemplate (waba: WabaState, request: NonNullable<OutgoingMessage['template']>): StoredTemplate {
  const template = findTemplate(waba, request.name, request.language)
  if (!template || template.status !== 'APPROVED') {
    const code = (template && REFUSALS[template.status]) ?? 132001
    throw new GraphError(code, { details: `template name (${request.name}) does not exist in ${request.language}` })
  }
  for (const part of ['HEADER', 'BODY']) {
    const expected = placeholderCount(template, part)
    const given = parameterCount(request.components, part)
    if (expected !== given) {
      throw new GraphError(132000, {
        details: `${part.toLowerCase()}: number of localizable_params (${given}) does not match the expected number of params (${expected})`
      })
    }
  }
  return template
}

function placeholderCount (template: StoredTemplate, part: string): number {
  const component = (template.components ?? []).find(c => isObject(c) && String(c.type).toUpperCase() === part)
  if (!isObject(component) || typeof component.text !== 'string') return 0
  return new Set(component.text.match(/\{\{\s*\w+\s*\}\}/g) ?? []).size
}

// A header's image, video or document fills the header's media, not a text placeholder (as Meta counts).
const MEDIA_PARAMETERS = ['image', 'video', 'document']

function parameterCount (components: unknown[], part: string): number {
  const component = components.find(c => isObject(c) && String(c.type).toUpperCase() === part)
  if (!isObject(component) || !Array.isArray(component.parameters)) return 0
  return component.parameters.filter(parameter => !(isObject(parameter) && MEDIA_PARAMETERS.includes(String(parameter.type)))).length
}
