import type { PhoneNumber } from '../../store/connections.js'
import type { Template } from '../../store/templates.js'
import { COMPOSE_TYPES, type ComposeForm } from '../compose-form.js'
import { flag, html, type SafeHtml } from '../html.js'
import { attribute, csrfField, field, notice, type Notice } from '../parts.js'

export interface ComposeView {
  csrfToken: string
  numbers: PhoneNumber[]
  templates: Template[]
  form: Partial<ComposeForm>
  result?: Notice
  /** the request field at fault, marked on the form */
  fieldAtFault?: string
}

const LABELS: Record<string, string> = { text: 'Text', template: 'Template', image: 'Image', document: 'Document', audio: 'Audio', video: 'Video', sticker: 'Sticker' }

export function composeContent (view: ComposeView): SafeHtml {
  if (view.numbers.length === 0) {
    return html`${view.result && notice(view.result)}<div class="card"><p>No number is connected yet, so there is nothing to send from.</p><p><a class="button" href="/dashboard/connection">Connect a number</a></p></div>`
  }
  const { form } = view
  const type = form.type || 'text'
  const error = (name: string) => view.fieldAtFault === name ? 'Check this field.' : undefined
  return html`
<p class="page-intro">Sent like an API request: the same checks, the same log, pacing and retries. Open to every plan.</p>
${view.result && notice(view.result)}
<section class="card">
<form class="form" method="post" action="/dashboard/compose" data-compose>
  ${csrfField(view.csrfToken)}
  <div class="field">
    <label for="field-phone_number_id">From</label>
    <select id="field-phone_number_id" name="phone_number_id">${view.numbers.map(number => html`<option value="${number.phoneNumberId}"${flag('selected', form.phone_number_id === number.phoneNumberId)}>${number.displayPhoneNumber}${number.verifiedName && ` · ${number.verifiedName}`}</option>`)}</select>
  </div>
  ${field({ name: 'to', label: 'To', type: 'text', value: form.to, required: true, maxlength: 131, autocomplete: 'off', placeholder: '+15551234567', hint: 'A phone number in international format (country code and number), or the business-scoped user id of a customer who wrote from a username (US.…).', error: error('to') ?? error('recipient') })}
  <fieldset>
    <legend>Message type</legend>
    <div class="choices">${COMPOSE_TYPES.map(value => html`<label class="choice"><input type="radio" name="type" value="${value}"${flag('checked', type === value)}> ${LABELS[value]}</label>`)}</div>
  </fieldset>
  <div class="field" data-types="text">
    <label for="field-body">Message <span class="hint">(text)</span></label>
    <textarea id="field-body" name="body" dir="auto" maxlength="4096" rows="4"${error('body') ? html` aria-invalid="true"` : ''}>${form.body ?? ''}</textarea>
    <label class="choice"><input type="checkbox" name="preview_url"${flag('checked', form.preview_url === 'on')}> Show a preview of the first link</label>
  </div>
  <div class="field" data-types="template">
    <label for="field-template">Template <span class="hint">(template)</span></label>
    <select id="field-template" name="template"${error('template') || error('language') ? html` aria-invalid="true"` : ''}>
      <option value="">Choose a template…</option>
      ${view.templates.map(template => templateOption(template, form.template))}
    </select>
    <p class="hint" data-template-preview></p>
    <label for="field-variables">Variables <span class="hint">(one per line: {{1}}, {{2}}, …)</span></label>
    <textarea id="field-variables" name="variables" dir="auto" rows="3"${error('components') ? html` aria-invalid="true"` : ''}>${form.variables ?? ''}</textarea>
  </div>
  <div data-types="image document audio video sticker">
    ${field({ name: 'link', label: 'Media link', type: 'url', value: form.link, maxlength: 2048, placeholder: 'https://example.com/picture.jpg', hint: 'A public http(s) URL of the file (media types).', error: error('link') ?? error('media_id') })}
  </div>
  <div data-types="image document video">
    ${field({ name: 'caption', label: 'Caption', value: form.caption, maxlength: 1024, hint: 'Optional (image, video and document).', error: error('caption') })}
  </div>
  <div data-types="document">
    ${field({ name: 'filename', label: 'File name', value: form.filename, maxlength: 240, hint: 'Optional (document).', error: error('filename') })}
  </div>
  <div class="actions"><button type="submit">Send message</button></div>
</form>
</section>`
}

function templateOption (template: Template, chosen: string | undefined): SafeHtml {
  const value = `${template.name}:${template.language}`
  const approved = template.status === 'APPROVED'
  const body = (template.components as { type?: string, text?: string }[]).find(component => component.type === 'BODY')?.text
  return html`<option value="${value}"${flag('selected', chosen === value)}${flag('disabled', !approved)}${attribute('data-body', body)}>${template.name} · ${template.language}${template.category && ` · ${template.category}`}${!approved && ` (${template.status})`}</option>`
}
