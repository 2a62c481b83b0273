import { Type, type Static } from '@sinclair/typebox'
import { USER_ID } from '../resources/recipient.js'

const USER_ID_PATTERN = new RegExp(USER_ID)

export const COMPOSE_TYPES = ['text', 'template', 'image', 'document', 'audio', 'video', 'sticker'] as const

/** The compose form as the browser posts it: strings only, empty when left blank or hidden. */
export const ComposeFormSchema = Type.Object({
  _csrf: Type.Optional(Type.String()),
  phone_number_id: Type.Optional(Type.String({ maxLength: 64 })),
  to: Type.String({ maxLength: 160 }),
  type: Type.Optional(Type.String({ maxLength: 20 })),
  body: Type.Optional(Type.String({ maxLength: 8192 })),
  preview_url: Type.Optional(Type.String({ maxLength: 10 })),
  template: Type.Optional(Type.String({ maxLength: 600 })),
  variables: Type.Optional(Type.String({ maxLength: 8192 })),
  link: Type.Optional(Type.String({ maxLength: 4096 })),
  caption: Type.Optional(Type.String({ maxLength: 2048 })),
  filename: Type.Optional(Type.String({ maxLength: 480 }))
})

export type ComposeForm = Static<typeof ComposeFormSchema>

/**
 * The API request body the form stands for: blank fields are left out, the template choice
 * (`name:language`) becomes template and language, and the variables (one per line) the body
 * component's text parameters. It is then validated exactly as an API body.
 */
export function messageBodyOf (form: ComposeForm): Record<string, unknown> {
  // the To field takes a phone number or a business-scoped user id (CONTRACT.md 16)
  const to = form.to.trim()
  const body: Record<string, unknown> = { ...(USER_ID_PATTERN.test(to) ? { recipient: to } : { to }), type: form.type || 'text' }
  const put = (name: string, value: string | undefined) => { if (value !== undefined && value !== '') body[name] = value }
  put('phone_number_id', form.phone_number_id)
  put('body', form.body)
  if (form.preview_url === 'on') body.preview_url = true
  if (form.template) {
    const [name, language] = form.template.split(':')
    put('template', name)
    put('language', language)
  }
  const variables = (form.variables ?? '').split(/\r?\n/).map(line => line.trim()).filter(line => line !== '')
  if (variables.length > 0) body.components = [{ type: 'body', parameters: variables.map(text => ({ type: 'text', text })) }]
  put('link', form.link?.trim())
  put('caption', form.caption)
  put('filename', form.filename?.trim())
  return body
}
