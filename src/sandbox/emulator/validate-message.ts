import { digitsOf } from './faults.js'
import { invalidParameter, requiredParameter } from './graph-error.js'
import { checkLength, isObject, optionalString, requireObject, requireString, type Json } from './json.js'
import { validateInteractive } from './validate-interactive.js'

export const MESSAGE_TYPES = ['text', 'image', 'audio', 'video', 'document', 'sticker', 'interactive', 'template', 'location', 'contacts', 'reaction']
const NO_CAPTION = new Set(['audio', 'sticker'])

export interface OutgoingMessage {
  input: string
  /** the phone number's digits, or the business-scoped user id of a send by `recipient` */
  to: string
  /** set for a send by `recipient` (a business-scoped user id) */
  userId?: string
  type: string
  bizOpaque?: string
  template?: { name: string, language: string, components: unknown[] }
}

const CHECKS: Record<string, (content: unknown, type: string) => void> = {
  text: checkText,
  image: checkMedia,
  audio: checkMedia,
  video: checkMedia,
  document: checkMedia,
  sticker: checkMedia,
  interactive: validateInteractive,
  template: checkTemplateShape,
  location: checkLocation,
  contacts: checkContacts,
  reaction: checkReaction
}

/** Validates a send the way the upstream does, throwing its error for the first problem found. */
export function validateMessage (body: unknown): OutgoingMessage {
  if (!isObject(body)) throw requiredParameter('messaging_product')
  const { input, userId } = checkEnvelope(body)
  const type = body.type ?? 'text'
  if (typeof type !== 'string' || !MESSAGE_TYPES.includes(type)) {
    throw invalidParameter(`Param type must be one of {${MESSAGE_TYPES.join(', ').toUpperCase()}} - got "${String(type)}".`)
  }
  if (body[type] === undefined) throw requiredParameter(type)
  CHECKS[type](body[type], type)
  const message: OutgoingMessage = userId !== undefined ? { input, to: userId, userId, type } : { input, to: digitsOf(input), type }
  message.bizOpaque = optionalString(body.biz_opaque_callback_data, 'biz_opaque_callback_data', 512)
  if (type === 'template') message.template = templateOf(body.template as Json)
  return message
}

// a business-scoped user id (BSUID) or a parent BSUID: a country code, a dot, an opaque id
const USER_ID = /^[A-Z]{2}\.[A-Za-z0-9._-]{1,128}$/

function checkEnvelope (body: Json): { input: string, userId?: string } {
  if (body.messaging_product === undefined) throw requiredParameter('messaging_product')
  if (body.messaging_product !== 'whatsapp') {
    throw invalidParameter(`Param messaging_product must be one of {WHATSAPP} - got "${String(body.messaging_product)}".`)
  }
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual' && body.recipient_type !== 'group') {
    throw invalidParameter(`Param recipient_type must be one of {INDIVIDUAL, GROUP} - got "${String(body.recipient_type)}".`)
  }
  if (body.context !== undefined) requireString(requireObject(body.context, 'context').message_id, "context['message_id']")
  // `recipient` names a user by its business-scoped user id; when both are given, `to` wins
  if (body.to === undefined && body.recipient !== undefined) {
    const recipient = requireString(body.recipient, 'recipient')
    if (!USER_ID.test(recipient)) throw invalidParameter('Param recipient must be a valid business-scoped user ID.')
    return { input: recipient, userId: recipient }
  }
  const to = typeof body.to === 'number' ? String(body.to) : requireString(body.to, 'to')
  if (digitsOf(to).length === 0) throw invalidParameter('Param to must be a valid WhatsApp ID or phone number.')
  return { input: to }
}

function checkText (content: unknown): void {
  const text = requireObject(content, 'text')
  const body = requireString(text.body, "text['body']", 4096)
  if (body.trim() === '') throw invalidParameter("Param text['body'] must be a non-empty string.")
  if (text.preview_url !== undefined && typeof text.preview_url !== 'boolean') {
    throw invalidParameter("Param text['preview_url'] must be a boolean.")
  }
}

function checkMedia (content: unknown, type: string): void {
  const media = requireObject(content, type)
  const hasId = media.id !== undefined
  if (hasId === (media.link !== undefined)) {
    throw invalidParameter(`Param ${type} must contain exactly one of the fields 'id' or 'link'.`)
  }
  if (hasId) requireString(media.id, `${type}['id']`)
  else checkLink(requireString(media.link, `${type}['link']`), `${type}['link']`)
  if (media.caption === undefined) return
  if (NO_CAPTION.has(type)) throw invalidParameter(`Param ${type}['caption'] is not allowed for ${type} messages.`)
  checkLength(requireString(media.caption, `${type}['caption']`), `${type}['caption']`, 1024)
}

function checkLink (link: string, name: string): void {
  if (!/^https?:\/\/[^\s/]+/i.test(link)) throw invalidParameter(`Param ${name} must be a valid http(s) URL.`)
}

function checkTemplateShape (content: unknown): void {
  const template = requireObject(content, 'template')
  requireString(template.name, "template['name']", 512)
  requireString(requireObject(template.language, "template['language']").code, "template['language']['code']")
  if (template.components !== undefined && !Array.isArray(template.components)) {
    throw invalidParameter("Param template['components'] must be an array.")
  }
}

function templateOf (template: Json): NonNullable<OutgoingMessage['template']> {
  const language = template.language as Json
  return { name: template.name as string, language: language.code as string, components: (template.components as unknown[] | undefined) ?? [] }
}

function checkLocation (content: unknown): void {
  const location = requireObject(content, 'location')
  for (const field of ['latitude', 'longitude']) {
    if (location[field] === undefined) throw requiredParameter(`location['${field}']`)
    if (Number.isNaN(Number(location[field]))) throw invalidParameter(`Param location['${field}'] must be a number.`)
  }
}

function checkContacts (content: unknown): void {
  if (!Array.isArray(content) || content.length === 0) throw invalidParameter('Param contacts must be a non-empty array.')
  content.forEach(function checkContact (contact, index) {
    requireObject(requireObject(contact, `contacts[${index}]`).name, `contacts[${index}]['name']`)
  })
}

function checkReaction (content: unknown): void {
  const reaction = requireObject(content, 'reaction')
  requireString(reaction.message_id, "reaction['message_id']")
  requireString(reaction.emoji, "reaction['emoji']")
}
