import { parse } from 'yaml'

/** A templates file (YAML or JSON, JSON being YAML): a list in the API's create shape, or an object whose `templates` is that list. */
export function templatesOfFile (text: string): unknown[] {
  let parsed: unknown
  try {
    parsed = parse(text, { prettyErrors: true, uniqueKeys: true })
  } catch (error) {
    throw new Error(`the file is neither YAML nor JSON: ${(error as Error).message.split('\n')[0]}`)
  }
  const list = Array.isArray(parsed) ? parsed : typeof parsed === 'object' && parsed !== null ? (parsed as { templates?: unknown }).templates : undefined
  if (!Array.isArray(list)) throw new Error('the file holds a list of templates, or an object whose templates is that list')
  return list
}
