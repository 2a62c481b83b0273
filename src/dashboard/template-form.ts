import { Type, type Static } from '@sinclair/typebox'
import type { Template } from '../store/templates.js'

export const FORM_BUTTONS = 3
export const BUTTON_KINDS = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER'] as const

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }))
const buttonFields = Object.fromEntries(Array.from({ length: FORM_BUTTONS }, (_, index) => [
  [`button_type_${index}`, text(20)], [`button_text_${index}`, text(100)], [`button_value_${index}`, text(2100)], [`button_example_${index}`, text(200)]
]).flat())

/** The template form as the browser posts it: strings only, blank when left empty. */
export const TemplateFormSchema = Type.Object({
  _csrf: text(200),
  id: text(64),
  name: text(600),
  language: text(40),
  category: text(40),
  header_text: text(200),
  header_example: text(200),
  body: text(2000),
  body_examples: text(4000),
  footer: text(200),
  ...buttonFields
})

export type TemplateForm = Static<typeof TemplateFormSchema> & Record<string, string | undefined>

/**
 * The API's create shape the form stands for, and which form field each JSON path of it came from,
 * so that the validator's problem is marked on the field a person typed it in. The form holds a text
 * header, the body with its examples (one a line), a footer and up to three buttons.
 */
export function draftOfForm (form: TemplateForm): { draft: Record<string, unknown>, fieldOf: (path: string) => string | undefined } {
  const components: Record<string, unknown>[] = []
  const fields = new Map<string, string>([['name', 'name'], ['language', 'language'], ['category', 'category']])
  const filled = (value: string | undefined) => value !== undefined && value.trim() !== ''
  function add (component: Record<string, unknown>, field: string, more: Record<string, string> = {}) {
    const at = `components[${components.length}]`
    components.push(component)
    fields.set(at, field)
    for (const [suffix, name] of Object.entries(more)) fields.set(`${at}${suffix}`, name)
    return at
  }
  if (filled(form.header_text)) {
    const example = filled(form.header_example) ? { example: { header_text: [form.header_example!.trim()] } } : {}
    add({ type: 'HEADER', format: 'TEXT', text: form.header_text, ...example }, 'header_text', { '.example': 'header_example' })
  }
  const examples = (form.body_examples ?? '').split(/\r?\n/).map((line: string) => line.trim()).filter((line: string) => line !== '')
  add({ type: 'BODY', text: form.body ?? '', ...(examples.length > 0 && { example: { body_text: [examples] } }) }, 'body', { '.example': 'body_examples' })
  if (filled(form.footer)) add({ type: 'FOOTER', text: form.footer }, 'footer')
  const buttons = Array.from({ length: FORM_BUTTONS }, (_, index) => index).filter(index => filled(form[`button_type_${index}`]))
  if (buttons.length > 0) {
    const at = add({ type: 'BUTTONS', buttons: buttons.map(index => buttonOf(form, index)) }, `button_text_${buttons[0]}`)
    buttons.forEach((index, position) => {
      for (const [suffix, name] of [['', 'text'], ['.type', 'type'], ['.text', 'text'], ['.url', 'value'], ['.phone_number', 'value'], ['.example', 'example']]) fields.set(`${at}.buttons[${position}]${suffix}`, `button_${name}_${index}`)
    })
  }
  const draft = { name: form.name?.trim() ?? '', language: form.language?.trim() ?? '', category: form.category ?? '', components }
  return { draft, fieldOf: path => [...fields.keys()].filter(prefix => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`)).sort((a, b) => b.length - a.length).map(prefix => fields.get(prefix))[0] }
}

function buttonOf (form: TemplateForm, index: number): Record<string, unknown> {
  const type = form[`button_type_${index}`]!
  const value = form[`button_value_${index}`]?.trim() ?? ''
  const example = form[`button_example_${index}`]?.trim() ?? ''
  const button: Record<string, unknown> = { type, text: form[`button_text_${index}`] ?? '' }
  if (type === 'URL') Object.assign(button, { url: value }, example !== '' && { example: [example] })
  if (type === 'PHONE_NUMBER') button.phone_number = value
  return button
}

/** A catalog template as the form shows it, for an edit: what the form cannot hold (media headers, other buttons) is left out. */
export function formOfTemplate (template: Template): TemplateForm {
  const form: TemplateForm = { id: template.upstreamId ?? '', name: template.name, language: template.language, category: template.category ?? '' }
  for (const component of template.components as Array<Record<string, any>>) {
    const type = String(component.type ?? '').toUpperCase()
    if (type === 'HEADER' && String(component.format ?? '').toUpperCase() === 'TEXT') Object.assign(form, { header_text: component.text, header_example: component.example?.header_text?.[0] })
    if (type === 'BODY') Object.assign(form, { body: component.text, body_examples: (component.example?.body_text?.[0] ?? []).join('\n') })
    if (type === 'FOOTER') form.footer = component.text
    if (type === 'BUTTONS') {
      ;(component.buttons as Array<Record<string, any>> ?? []).filter(button => (BUTTON_KINDS as readonly string[]).includes(String(button.type).toUpperCase())).slice(0, FORM_BUTTONS).forEach((button, index) => {
        Object.assign(form, { [`button_type_${index}`]: String(button.type).toUpperCase(), [`button_text_${index}`]: button.text, [`button_value_${index}`]: button.url ?? button.phone_number, [`button_example_${index}`]: Array.isArray(button.example) ? button.example[0] : undefined })
      })
    }
  }
  return form
}
