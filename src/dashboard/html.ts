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

/** The template tag every view uses: each interpolated value is escaped unless it is SafeHtml. */
export function html (strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let markup = strings[0]
  values.forEach((value, index) => { markup += render(value) + strings[index + 1] })
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

function render (value: Interpolation): string {
  if (value instanceof SafeHtml) return value.markup
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || typeof value === 'boolean') return ''
  return escapeHtml(String(value))
}
