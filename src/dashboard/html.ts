/** Markup that is safe to insert as is: produced by `html` or vouched for with `trusted`. */
export class SafeHtml {
  constructor (readonly markup: string) {}
  toString (): string { return this.markup }
}

/** What a template may interpolate: anything that is not SafeHtml is escaped; null, undefined and booleans render nothing. */
export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[]

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escaped for text and for quoted attribute values alike. */
export function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, character => ESCAPES[character])
}

// The bidi controls: embeddings, overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C).
const CONTROL_RANGES = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069'
const BIDI_CONTROLS = new RegExp(`[${CONTROL_RANGES}]`, 'gu')
// What can be reordered, or reorder the page around it: a bidi control or a right-to-left letter or digit.
const BIDI_SENSITIVE = new RegExp(`[${CONTROL_RANGES}\\u0590-\\u08FF\\uFB1D-\\uFDFF\\uFE70-\\uFEFE\\u{10800}-\\u{10FFF}\\u{1E800}-\\u{1EFFF}]`, 'u')

/** An identifier as it is shown: each bidi control a visible mark ("abc[U+202E]def"), so it cannot pass for another. */
export function identifier (text: string): string {
  return text.replace(BIDI_CONTROLS, control => `[U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
}

/**
 * Where in the markup a value lands, read from the template's own text: in text it is isolated
 * (`<bdi>`) when it holds anything bidi; where markup cannot go (an attribute, `<title>`,
 * `<option>`) and in `<code>` (ids, names, keys) its controls are shown; an input's `value` and a
 * `<textarea>` (what a form sends back) keep them.
 */
type Context = 'text' | 'identifier' | 'markless' | 'verbatim'

const contexts = new WeakMap<TemplateStringsArray, Context[]>()

function contextsOf (strings: TemplateStringsArray): Context[] {
  let known = contexts.get(strings)
  if (!known) {
    known = strings.slice(0, -1).map((_, index) => contextAt(strings.slice(0, index + 1).join('')))
    contexts.set(strings, known)
  }
  return known
}

function contextAt (before: string): Context {
  const tag = before.lastIndexOf('<')
  if (tag > before.lastIndexOf('>')) return /\svalue="[^"]*$/.test(before.slice(tag)) ? 'verbatim' : 'markless'
  const element = [...before.matchAll(/<(\/?)(title|option|textarea|code)\b/gi)].at(-1)
  if (!element || element[1] === '/') return 'text'
  const name = element[2].toLowerCase()
  return name === 'textarea' ? 'verbatim' : name === 'code' ? 'identifier' : 'markless'
}

/** The template tag every view uses: each interpolated value is escaped unless it is SafeHtml, and kept from reordering the page. */
export function html (strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  const where = contextsOf(strings)
  let markup = strings[0]
  values.forEach((value, index) => { markup += render(value, where[index]) + strings[index + 1] })
  return new SafeHtml(markup)
}

/** Marks a string as markup: only for text the code itself wrote, never for data. */
export function trusted (markup: string): SafeHtml {
  return new SafeHtml(markup)
}

/** ` name` when on: boolean attributes such as selected, checked, disabled. */
export function flag (name: 'selected' | 'checked' | 'disabled' | 'required' | 'open' | 'hidden', on: boolean | undefined): SafeHtml {
  return new SafeHtml(on ? ` ${name}` : '')
}

function render (value: Interpolation, context: Context): string {
  if (value instanceof SafeHtml) return value.markup
  if (Array.isArray(value)) return value.map(item => render(item, context)).join('')
  if (value === null || value === undefined || typeof value === 'boolean') return ''
  const text = String(value)
  if (context === 'verbatim') return escapeHtml(text)
  if (context === 'markless') return escapeHtml(identifier(text))
  const shown = context === 'identifier' ? identifier(text) : text
  return BIDI_SENSITIVE.test(shown) ? `<bdi>${escapeHtml(shown)}</bdi>` : escapeHtml(shown)
}
