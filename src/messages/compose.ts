import { invalidRequest } from '../errors.js'
import { checkInteractive } from './interactive.js'
import { MEDIA_TYPES, type MediaType, type MessageType, type SendMessageBody } from './schemas.js'
import { templateContent, type TemplatesNamed } from './template.js'

/** A validated message: what the log record and the upstream payload are made of. */
export interface ComposedMessage {
  type: MessageType
  /** who it is for: a phone number's digits, or a business-scoped user id (src/resources/recipient.ts) */
  recipient: string
  /** the upstream's object for this type: `text`, `template`, `image`, … */
  content: Record<string, unknown>
  replyTo?: string
}

// The types each type-specific field belongs to: given with any other type it is a mistake worth a 422.
const FIELD_TYPES: Record<string, readonly MessageType[]> = {
  body: ['text'],
  text: ['text'],
  preview_url: ['text'],
  template: ['template'],
  template_name: ['template'],
  language: ['template'],
  components: ['template'],
  media_id: MEDIA_TYPES,
  link: MEDIA_TYPES,
  caption: ['image', 'video', 'document'],
  filename: ['document'],
  interactive: ['interactive']
}

/** The per-type rules of CONTRACT.md section 2 on a body that passed the schema. */
export async function composeMessage (body: SendMessageBody, templatesNamed: TemplatesNamed): Promise<ComposedMessage> {
  const type = body.type ?? 'text'
  for (const [field, types] of Object.entries(FIELD_TYPES)) {
    if (body[field as keyof SendMessageBody] !== undefined && !types.includes(type)) {
      throw invalidRequest(`${field} is not allowed for type ${type} (only for ${types.join(', ')})`, field)
    }
  }
  return {
    type,
    recipient: recipientOf(body),
    content: await contentOf(type, body, templatesNamed),
    ...(body.reply_to !== undefined && { replyTo: body.reply_to })
  }
}

/** Exactly one of `to` (a phone number) and `recipient` (a business-scoped user id) names the recipient. */
function recipientOf (body: SendMessageBody): string {
  if (body.to !== undefined && body.recipient !== undefined) {
    throw invalidRequest('give either to (a phone number) or recipient (a business-scoped user id), not both', 'to')
  }
  if (body.recipient !== undefined) return body.recipient
  if (body.to === undefined) throw invalidRequest('to or recipient is required: to for a phone number, recipient for a business-scoped user id', 'to')
  return body.to.replace(/^\+/, '')
}

async function contentOf (type: MessageType, body: SendMessageBody, templatesNamed: TemplatesNamed): Promise<Record<string, unknown>> {
  switch (type) {
    case 'text': return textContent(body)
    case 'template': return await templateContent(body, templatesNamed)
    case 'interactive': return interactiveContent(body)
    default: return mediaContent(type, body)
  }
}

function textContent (body: SendMessageBody): Record<string, unknown> {
  const text = body.body ?? body.text
  if (text === undefined) throw invalidRequest('body is required for type text (alias: text)', 'body')
  return { body: text, ...(body.preview_url !== undefined && { preview_url: body.preview_url }) }
}

function mediaContent (type: MediaType, body: SendMessageBody): Record<string, unknown> {
  if (body.media_id !== undefined && body.link !== undefined) throw invalidRequest(`give either media_id or link for type ${type}, not both`, 'media_id')
  if (body.media_id === undefined && body.link === undefined) throw invalidRequest(`media_id or link is required for type ${type}`, 'media_id')
  return {
    ...(body.media_id !== undefined ? { id: body.media_id } : { link: body.link }),
    ...(body.caption !== undefined && { caption: body.caption }),
    ...(body.filename !== undefined && { filename: body.filename })
  }
}

function interactiveContent (body: SendMessageBody): Record<string, unknown> {
  if (body.interactive === undefined) throw invalidRequest('interactive is required for type interactive', 'interactive')
  checkInteractive(body.interactive)
  return body.interactive
}
