import { templateParameters } from '../errors.js'
import { isObject } from '../messages/checks.js'

type Components = ReadonlyArray<{ type: string, sub_type?: string, index?: string | number, parameters?: ReadonlyArray<{ type: string }> }>

// A header's media and a location fill the header themselves: they are no placeholder's value.
const HEADER_FILLERS = new Set(['image', 'video', 'document', 'location'])
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g

/** The placeholders of a text: `{{1}}`, `{{2}}` or named `{{first_name}}`, each counted once. */
function placeholders (text: unknown): number {
  return typeof text === 'string' ? new Set([...text.matchAll(PLACEHOLDER)].map(match => match[1])).size : 0
}

/** Per part of the template (header text, body, each URL button) how many values it needs. */
export function expectedParameters (catalog: unknown[]): Map<string, number> {
  const expected = new Map<string, number>()
  for (const component of catalog.filter(isObject)) {
    const type = String(component.type).toUpperCase()
    if (type === 'HEADER' && String(component.format ?? 'TEXT').toUpperCase() === 'TEXT') expected.set('header', placeholders(component.text))
    if (type === 'BODY') expected.set('body', placeholders(component.text))
    if (type === 'BUTTONS' && Array.isArray(component.buttons)) {
      component.buttons.forEach((button, index) => {
        if (isObject(button) && String(button.type).toUpperCase() === 'URL') expected.set(`button ${index}`, placeholders(button.url))
      })
    }
  }
  return expected
}

function givenParameters (components: Components): Map<string, number> {
  const given = new Map<string, number>()
  for (const component of components) {
    const type = component.type.toLowerCase()
    const parameters = component.parameters ?? []
    if (type === 'header') given.set('header', parameters.filter(parameter => !HEADER_FILLERS.has(parameter.type)).length)
    if (type === 'body') given.set('body', parameters.length)
    // a quick-reply button's payload is not a placeholder's value
    if (type === 'button' && component.sub_type === 'url') given.set(`button ${String(component.index)}`, parameters.length)
  }
  return given
}

/**
 * 422 template_parameters unless each part of the request fills exactly the placeholders of the
 * synced template's same part (CONTRACT.md 14): the upstream would refuse it (132000).
 */
export function checkTemplateParameters (name: string, language: string, catalog: unknown[], components: Components = []): void {
  const expected = expectedParameters(catalog)
  const given = givenParameters(components)
  for (const part of new Set([...expected.keys(), ...given.keys()])) {
    const want = expected.get(part) ?? 0
    const got = given.get(part) ?? 0
    if (want !== got) {
      throw templateParameters(`template ${name} in ${language} expects ${want} ${part} parameter${want === 1 ? '' : 's'}, the request gives ${got}`)
    }
  }
}
