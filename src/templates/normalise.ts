import { formatOf } from './rules.js'

// Keys whose values are enums the upstream answers in uppercase whatever case they were sent in.
const ENUM_KEYS = new Set(['type', 'format', 'otp_type'])

/** A template's components as the catalog and a file compare them: enums in one case, keys in one order. */
export function normalComponents (components: unknown): string {
  return JSON.stringify(normal(components))
}

function normal (value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map(item => normal(item))
  if (typeof value === 'string') return key !== undefined && ENUM_KEYS.has(key) ? value.toUpperCase() : value
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  return Object.fromEntries(entries.map(([name, item]) => [name, normal(item, name)]))
}

/** True when the file's template is the catalog's: same components, parameter format and category (an approved one's category is Meta's to change). */
export function sameTemplate (
  wanted: { components: unknown, parameter_format?: unknown, category: unknown },
  catalog: { components: unknown, parameterFormat: string | null, category: string | null, status: string }
): boolean {
  if (normalComponents(wanted.components) !== normalComponents(catalog.components)) return false
  if (formatOf(wanted.parameter_format) !== formatOf(catalog.parameterFormat)) return false
  return catalog.status === 'APPROVED' || String(wanted.category).toUpperCase() === (catalog.category ?? '').toUpperCase()
}
