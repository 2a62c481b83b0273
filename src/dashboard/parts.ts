import { isUserId } from '../resources/recipient.js'
import { flag, html, identifier, type Interpolation, type SafeHtml } from './html.js'

export interface Notice { kind: 'success' | 'error' | 'warning' | 'info', title?: string, text: Interpolation }

export function notice ({ kind, title, text }: Notice): SafeHtml {
  // Errors interrupt a screen reader; the rest wait their turn.
  const role = kind === 'error' ? 'alert' : 'status'
  return html`<div class="alert alert-${kind}" role="${role}">${title && html`<strong>${title}</strong>`}<p>${text}</p></div>`
}

export function csrfField (token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`
}

export function badge (status: string, label = status): SafeHtml {
  return html`<span class="badge" data-status="${status}">${label}</span>`
}

export function planBadge (plan: string): SafeHtml {
  const label = `${plan.charAt(0).toUpperCase()}${plan.slice(1)} plan`
  return html`<span class="badge" data-status="${plan === 'growth' || plan === 'scale' ? 'active' : plan}">${label}</span>`
}

/** A UTC timestamp a person can read, with the exact instant for machines. */
export function time (date: Date | null | undefined): SafeHtml {
  return date ? html`<time datetime="${date.toISOString()}">${formatTime(date)}</time>` : html`<span class="muted">never</span>`
}

export function formatTime (date: Date): string {
  return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
}

/** A template name: one word, never broken (its container scrolls when it is too long for a phone). */
export function templateName (name: string): SafeHtml {
  return html`<code class="template-name">${name}</code>`
}

export function phone (digits: string): string {
  return `+${identifier(digits)}`
}

/** A log record's recipient: +digits for a phone number, a business-scoped user id as it is. */
export function recipientLabel (recipient: string): string {
  return isUserId(recipient) ? identifier(recipient) : phone(recipient)
}

export function empty (text: Interpolation): SafeHtml {
  return html`<p class="empty">${text}</p>`
}

export interface FieldOptions {
  name: string
  label: string
  value?: string
  type?: 'text' | 'email' | 'password' | 'url' | 'tel' | 'search'
  hint?: Interpolation
  error?: string
  required?: boolean
  autocomplete?: string
  placeholder?: string
  maxlength?: number
  inputmode?: 'numeric' | 'tel' | 'email'
}

/** A labelled input with its hint and error wired to it for assistive technology. */
export function field (options: FieldOptions): SafeHtml {
  const id = `field-${options.name}`
  const described = [options.hint && `${id}-hint`, options.error && `${id}-error`].filter(Boolean).join(' ')
  return html`<div class="field">
  <label for="${id}">${options.label}</label>
  <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${flag('required', options.required)}${attribute('autocomplete', options.autocomplete)}${attribute('placeholder', options.placeholder)}${attribute('maxlength', options.maxlength)}${attribute('inputmode', options.inputmode)}${attribute('aria-describedby', described || undefined)}${options.error ? html` aria-invalid="true"` : ''}>
  ${options.hint && html`<span class="hint" id="${id}-hint">${options.hint}</span>`}
  ${options.error && html`<span class="field-error" id="${id}-error">${options.error}</span>`}
</div>`
}

export function attribute (name: string, value: string | number | undefined): SafeHtml {
  return value === undefined ? html`` : html` ${name}="${value}"`
}

/** A secret shown this once (an API key, a webhook signing secret), with a copy button. */
export function secretOnce ({ heading, warning, label, secret }: { heading: string, warning: Notice, label: string, secret: string }): SafeHtml {
  return html`<section class="card" aria-labelledby="secret-heading">
  <h2 id="secret-heading">${heading}</h2>
  ${notice(warning)}
  <label class="label" for="new-secret">${label}</label>
  <div class="secret">
    <input id="new-secret" type="text" value="${secret}" readonly spellcheck="false" autocomplete="off" data-secret>
    <button type="button" class="secondary" data-copy="new-secret">Copy</button>
  </div>
  <p class="copy-status" role="status" aria-live="polite" data-copy-status></p>
</section>`
}
