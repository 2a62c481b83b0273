import { buttonProblems } from './buttons.js'
import { exampleProblem, isRecord, placeholdersOf, type ParameterFormat, type Problem } from './placeholders.js'

export type { Problem } from './placeholders.js'

// The upstream's rules for a template (CONTRACT.md 20, upstream-facts.md 8.1), checked before anything goes upstream.
export const NAME = /^[a-z0-9_]{1,512}$/
export const LANGUAGE = /^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/
export const CATEGORIES = ['AUTHENTICATION', 'MARKETING', 'UTILITY'] as const
export const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'] as const
export const HEADER_FORMATS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'] as const
export const MAX_HEADER = 60
export const MAX_BODY = 1024
export const MAX_FOOTER = 60

/**
 * Every rule a template breaks, each with the JSON path of what breaks it: the one validator the
 * API, `outbound templates plan|apply` and the dashboard show the output of. An empty list: valid.
 */
export function templateProblems (template: unknown): Problem[] {
  if (!isRecord(template)) return [{ field: '', error: 'a template is an object with name, language, category and components' }]
  const problems: Problem[] = []
  if (typeof template.name !== 'string' || !NAME.test(template.name)) problems.push({ field: 'name', error: 'name is 1 to 512 lowercase letters, digits and underscores' })
  if (typeof template.language !== 'string' || !LANGUAGE.test(template.language)) problems.push({ field: 'language', error: 'language is a locale code such as en_US or de' })
  if (!oneOf(template.category, CATEGORIES)) problems.push({ field: 'category', error: `category is one of ${CATEGORIES.join(', ')}` })
  if (template.parameter_format !== undefined && !oneOf(template.parameter_format, ['POSITIONAL', 'NAMED'])) {
    problems.push({ field: 'parameter_format', error: 'parameter_format is positional or named' })
  }
  if (template.allow_category_change !== undefined && typeof template.allow_category_change !== 'boolean') {
    problems.push({ field: 'allow_category_change', error: 'allow_category_change is true or false' })
  }
  problems.push(...componentsProblems(template.components, formatOf(template.parameter_format), String(template.category ?? '').toUpperCase()))
  return problems
}

export function formatOf (value: unknown): ParameterFormat {
  return typeof value === 'string' && value.toLowerCase() === 'named' ? 'named' : 'positional'
}

/** The rules of a components list alone: an edit sends only components. */
export function componentsProblems (components: unknown, format: ParameterFormat, category: string): Problem[] {
  if (!Array.isArray(components) || components.length === 0) return [{ field: 'components', error: 'components is a list that holds a BODY' }]
  const problems: Problem[] = []
  const seen = new Map<string, number>()
  components.forEach((component, index) => {
    const at = `components[${index}]`
    if (!isRecord(component)) return problems.push({ field: at, error: 'a component is an object' })
    const type = typeof component.type === 'string' ? component.type.toUpperCase() : ''
    if (!(COMPONENT_TYPES as readonly string[]).includes(type)) return problems.push({ field: `${at}.type`, error: `component type is one of ${COMPONENT_TYPES.join(', ')}` })
    if (seen.has(type)) return problems.push({ field: `${at}.type`, error: `a template has at most one ${type} (components[${seen.get(type)}] is one)` })
    seen.set(type, index)
    problems.push(...componentProblems(component, type, at, format, category))
  })
  if (!seen.has('BODY') && !problems.some(problem => problem.field.endsWith('.type'))) problems.push({ field: 'components', error: 'a template needs a BODY component' })
  return problems
}

function componentProblems (component: Record<string, unknown>, type: string, at: string, format: ParameterFormat, category: string): Problem[] {
  if (type === 'BUTTONS') return buttonProblems(component.buttons, at)
  if (type === 'HEADER') return headerProblems(component, at, format)
  if (type === 'FOOTER') {
    if (component.text === undefined && category === 'AUTHENTICATION' && component.code_expiration_minutes !== undefined) return []
    return textProblems(component, at, MAX_FOOTER, 'footer', format, undefined)
  }
  if (component.text === undefined && category === 'AUTHENTICATION' && component.add_security_recommendation !== undefined) return []
  return textProblems(component, at, MAX_BODY, 'body', format, 'body')
}

function headerProblems (component: Record<string, unknown>, at: string, format: ParameterFormat): Problem[] {
  const kind = typeof component.format === 'string' ? component.format.toUpperCase() : ''
  if (!(HEADER_FORMATS as readonly string[]).includes(kind)) return [{ field: `${at}.format`, error: `header format is one of ${HEADER_FORMATS.join(', ')}` }]
  if (kind === 'TEXT') return textProblems(component, at, MAX_HEADER, 'header', format, 'header')
  if (kind === 'LOCATION') return []
  const handles = isRecord(component.example) ? component.example.header_handle : undefined
  if (!Array.isArray(handles) || handles.length === 0 || typeof handles[0] !== 'string') {
    return [{ field: `${at}.example`, error: `a ${kind} header needs example.header_handle: [a media handle from the resumable upload]` }]
  }
  return []
}

/** A text part: its length as written (placeholders included), its placeholders, and their example. */
function textProblems (component: Record<string, unknown>, at: string, max: number, what: 'header' | 'body' | 'footer', format: ParameterFormat, part: 'header' | 'body' | undefined): Problem[] {
  const text = component.text
  if (typeof text !== 'string' || text.trim() === '') return [{ field: `${at}.text`, error: `the ${what} needs a text` }]
  const length = [...text].length
  if (length > max) return [{ field: `${at}.text`, error: `${what} text is at most ${max} characters; found ${length}` }]
  const found = placeholdersOf(text, format, `${at}.text`)
  if ('problem' in found) return [found.problem]
  if (part === undefined) return found.names.length === 0 ? [] : [{ field: `${at}.text`, error: 'a footer has no placeholders' }]
  if (part === 'header' && found.names.length > 1) return [{ field: `${at}.text`, error: `a header has at most one placeholder; found ${found.names.length}` }]
  const problem = exampleProblem(component.example, part, found.names, format, `${at}.example`)
  return problem ? [problem] : []
}

function oneOf (value: unknown, allowed: readonly string[]): boolean {
  return typeof value === 'string' && allowed.includes(value.toUpperCase())
}
