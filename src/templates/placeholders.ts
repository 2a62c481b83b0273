/** A rule broken, at a JSON path within the template (`components[1].buttons[2].text`). */
export interface Problem { field: string, error: string }

export type ParameterFormat = 'positional' | 'named'

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g
const POSITIONAL = /^[1-9][0-9]*$/
const NAMED = /^[a-z_][a-z0-9_]*$/

/** The placeholders of a text in order of appearance, or the problem with them. */
export function placeholdersOf (text: string, format: ParameterFormat, field: string): { names: string[] } | { problem: Problem } {
  const names = [...text.matchAll(PLACEHOLDER)].map(match => match[1])
  const rest = text.replace(PLACEHOLDER, '')
  if (rest.includes('{{') || rest.includes('}}')) return { problem: { field, error: 'mismatched braces: every placeholder is written {{…}}' } }
  const unique = [...new Set(names)]
  if (format === 'positional') {
    const bad = unique.find(name => !POSITIONAL.test(name))
    if (bad !== undefined) return { problem: { field, error: `placeholder {{${bad}}} is not positional: write {{1}}, {{2}}, … (or set parameter_format named)` } }
    const expected = unique.map((_, index) => String(index + 1))
    if (unique.some((name, index) => name !== expected[index])) {
      return { problem: { field, error: `positional placeholders must be {{1}}…{{${unique.length}}} in order; found ${unique.map(name => `{{${name}}}`).join(', ')}` } }
    }
    return { names: unique }
  }
  const bad = unique.find(name => !NAMED.test(name))
  if (bad !== undefined) return { problem: { field, error: `placeholder {{${bad}}} is not a name: named placeholders are lowercase letters, digits and underscores` } }
  if (unique.length !== names.length) return { problem: { field, error: 'each named placeholder appears once' } }
  return { names: unique }
}

/** The example a component's placeholders need (upstream-facts.md 8.1), checked against their names. */
export function exampleProblem (example: unknown, part: 'header' | 'body', names: string[], format: ParameterFormat, field: string): Problem | undefined {
  if (names.length === 0) return undefined
  const object = isRecord(example) ? example : {}
  if (format === 'named') {
    const key = `${part}_text_named_params`
    const given = Array.isArray(object[key]) ? object[key] as unknown[] : []
    const covered = new Set(given.filter(isRecord).filter(entry => typeof entry.example === 'string' && entry.example !== '').map(entry => entry.param_name))
    const missing = names.find(name => !covered.has(name))
    return missing === undefined ? undefined : { field, error: `example.${key} needs an example for {{${missing}}}` }
  }
  const values = part === 'header' ? object.header_text : Array.isArray(object.body_text) ? object.body_text[0] : undefined
  const shape = part === 'header' ? 'example.header_text: ["…"]' : 'example.body_text: [["…", …]]'
  if (!Array.isArray(values) || values.length !== names.length || !values.every(value => typeof value === 'string' && value !== '')) {
    return { field, error: `${names.length} placeholder${names.length === 1 ? '' : 's'} need${names.length === 1 ? 's' : ''} ${names.length} example value${names.length === 1 ? '' : 's'} (${shape})` }
  }
  return undefined
}

export function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
