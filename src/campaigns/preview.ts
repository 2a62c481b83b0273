const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g

/**
 * The template's body text with one recipient's variables in place (the dashboard's preview of a
 * campaign before it is confirmed): positional `{{1}}` from the array, named `{{first_name}}` from
 * the object. A placeholder with no value stays as it is, so the preview shows what is missing.
 */
export function fillTemplateText (components: unknown[], variables: string[] | Record<string, string> | null): string {
  const body = components.find((component): component is { type: string, text?: unknown } =>
    typeof component === 'object' && component !== null && String((component as { type?: unknown }).type).toUpperCase() === 'BODY')
  const text = body && typeof body.text === 'string' ? body.text : null
  if (text === null) return variables === null ? '(the template\'s text is not in the catalog)' : Object.values(variables).join(' · ')
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = variables === null ? undefined : Array.isArray(variables) ? variables[Number(name) - 1] : variables[name]
    return value ?? whole
  })
}
