import { BUTTON_KINDS, draftOfForm, FORM_BUTTONS, type TemplateForm } from '../template-form.js'
import { flag, html, type SafeHtml } from '../html.js'
import { csrfField, field, notice, type Notice } from '../parts.js'
import { CATEGORIES } from '../../templates/rules.js'

export interface TemplateFormView {
  csrfToken: string
  form: TemplateForm
  /** editing: the template's status (name and language are then fixed) */
  editing?: { status: string }
  result?: Notice
  /** the form field the validator's problem came from */
  fieldAtFault?: string
}

const BUTTON_LABELS: Record<string, string> = { QUICK_REPLY: 'Quick reply', URL: 'Visit website', PHONE_NUMBER: 'Call phone number' }

/** The create and edit form, with the message as a phone shows it beside it (kept live by dashboard.js). */
export function templateFormContent (view: TemplateFormView): SafeHtml {
  const { form, editing } = view
  const error = (name: string) => view.fieldAtFault === name ? 'Check this field.' : undefined
  const invalid = (name: string) => error(name) ? html` aria-invalid="true"` : ''
  const action = editing ? `/dashboard/templates/${encodeURIComponent(form.id ?? '')}/edit` : '/dashboard/templates/new'
  const categoryFixed = editing?.status === 'APPROVED'
  return html`
<p class="page-intro">${editing ? html`Editing <code>${form.name}</code> (${form.language}, ${editing.status}). An approved template can be edited once a day and 10 times in 30 days; the edit goes to review again.` : 'A new template goes to WhatsApp for review; it can be sent once approved. The same checks as the API run before anything is submitted.'}</p>
${view.result && notice(view.result)}
<div class="template-editor">
<section class="card">
<form class="form" method="post" action="${action}" data-template-form>
  ${csrfField(view.csrfToken)}
  ${editing
    ? html`<input type="hidden" name="name" value="${form.name ?? ''}"><input type="hidden" name="language" value="${form.language ?? ''}">`
    : html`${field({ name: 'name', label: 'Name', value: form.name, required: true, maxlength: 512, autocomplete: 'off', placeholder: 'order_update', hint: 'Lowercase letters, digits and underscores.', error: error('name') })}
  ${field({ name: 'language', label: 'Language', value: form.language ?? 'en_US', required: true, maxlength: 20, placeholder: 'en_US', error: error('language') })}`}
  <div class="field">
    <label for="field-category">Category</label>
    <select id="field-category" name="category"${flag('disabled', categoryFixed)}${invalid('category')}>${CATEGORIES.map(category => html`<option value="${category}"${flag('selected', (form.category ?? 'UTILITY').toUpperCase() === category)}>${category}</option>`)}</select>
    ${categoryFixed && html`<span class="hint">The category of an approved template cannot change.</span>`}
  </div>
  ${field({ name: 'header_text', label: 'Header (optional)', value: form.header_text, maxlength: 200, hint: 'Up to 60 characters, at most one placeholder {{1}}.', error: error('header_text') })}
  ${field({ name: 'header_example', label: 'Header example', value: form.header_example, maxlength: 200, hint: 'The value of the header\'s {{1}}, for the review.', error: error('header_example') })}
  <div class="field">
    <label for="field-body">Body</label>
    <textarea id="field-body" name="body" dir="auto" rows="5" maxlength="2000" required${invalid('body')}>${form.body ?? ''}</textarea>
    <span class="hint">Up to 1024 characters; placeholders {{1}}, {{2}}, … in order.</span>
    ${error('body') && html`<span class="field-error">${error('body')}</span>`}
  </div>
  <div class="field">
    <label for="field-body_examples">Body examples <span class="hint">(one per line: {{1}}, {{2}}, …)</span></label>
    <textarea id="field-body_examples" name="body_examples" dir="auto" rows="3"${invalid('body_examples')}>${form.body_examples ?? ''}</textarea>
  </div>
  ${field({ name: 'footer', label: 'Footer (optional)', value: form.footer, maxlength: 200, hint: 'Up to 60 characters, no placeholders.', error: error('footer') })}
  <fieldset>
    <legend>Buttons (optional)</legend>
    ${Array.from({ length: FORM_BUTTONS }, (_, index) => buttonRow(form, index, invalid))}
    <p class="hint">Quick replies sit together; at most 2 website buttons (a placeholder only at the end of the URL) and 1 phone number; text up to 25 characters.</p>
  </fieldset>
  <div class="actions"><button type="submit">${editing ? 'Submit the edit' : 'Submit for review'}</button> <a href="/dashboard/templates">Cancel</a></div>
</form>
</section>
${phonePreview(form)}
</div>`
}

function buttonRow (form: TemplateForm, index: number, invalid: (name: string) => SafeHtml | string): SafeHtml {
  const chosen = form[`button_type_${index}`] ?? ''
  return html`<div class="button-row" data-button-row>
    <label class="sr-only" for="field-button_type_${index}">Button ${index + 1} kind</label>
    <select id="field-button_type_${index}" name="button_type_${index}"${invalid(`button_type_${index}`)}><option value="">No button ${index + 1}</option>${BUTTON_KINDS.map(kind => html`<option value="${kind}"${flag('selected', chosen === kind)}>${BUTTON_LABELS[kind]}</option>`)}</select>
    <label class="sr-only" for="field-button_text_${index}">Button ${index + 1} text</label>
    <input id="field-button_text_${index}" name="button_text_${index}" value="${form[`button_text_${index}`] ?? ''}" maxlength="100" placeholder="Text"${invalid(`button_text_${index}`)}>
    <label class="sr-only" for="field-button_value_${index}">Button ${index + 1} URL or phone number</label>
    <input id="field-button_value_${index}" name="button_value_${index}" value="${form[`button_value_${index}`] ?? ''}" maxlength="2100" placeholder="https://… or +1555…"${invalid(`button_value_${index}`)}>
    <label class="sr-only" for="field-button_example_${index}">Button ${index + 1} URL example</label>
    <input id="field-button_example_${index}" name="button_example_${index}" value="${form[`button_example_${index}`] ?? ''}" maxlength="200" placeholder="URL {{1}} example"${invalid(`button_example_${index}`)}>
  </div>`
}

/** The message as a phone shows it: header, body with the examples in place of the placeholders, footer, buttons. */
export function phonePreview (form: TemplateForm): SafeHtml {
  const { draft } = draftOfForm(form)
  const parts = draft.components as Array<Record<string, any>>
  const textOf = (type: string) => parts.find(part => part.type === type)
  const header = textOf('HEADER')
  const body = textOf('BODY')
  const examples = (body?.example?.body_text?.[0] ?? []) as string[]
  const buttons = (textOf('BUTTONS')?.buttons ?? []) as Array<{ type: string, text: string }>
  return html`<aside class="card template-preview" aria-label="Preview on a phone">
  <h2>Preview</h2>
  <div class="phone-screen" data-template-phone>
    <div class="phone-bubble">
      <p class="bubble-header" data-preview="header"${flag('hidden', !header)}>${header ? filledIn(header.text, [header.example?.header_text?.[0]]) : ''}</p>
      <p class="bubble-body" data-preview="body" dir="auto">${filledIn(body?.text ?? '', examples)}</p>
      <p class="bubble-footer" data-preview="footer"${flag('hidden', !textOf('FOOTER'))}>${textOf('FOOTER')?.text ?? ''}</p>
      <span class="bubble-time">12:00</span>
    </div>
    <ul class="bubble-buttons" data-preview="buttons">${buttons.map(button => html`<li data-kind="${button.type}">${button.text}</li>`)}</ul>
  </div>
</aside>`
}

/** {{n}} replaced by its example, or left as written when there is none. */
function filledIn (text: string, examples: Array<string | undefined>): string {
  return text.replace(/\{\{(\d+)\}\}/g, (placeholder, n: string) => examples[Number(n) - 1] || placeholder)
}
