/**
 * The readable text of a message (CONTRACT.md 19), pure functions of what the upstream carried:
 * an inbound message's `text`, and what a reply's `reply_to.text` shows of the message it answers.
 */

type Json = Record<string, unknown>
const objectOf = (value: unknown): Json => typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Json : {}
const stringOr = (value: unknown): string | null => typeof value === 'string' ? value : null

/** A text's body, a caption, a template quick-reply's `button.text`, a button or list reply's title; null for a Flow's nfm_reply and the rest. */
export function inboundText (type: string, payload: unknown): string | null {
  const part = objectOf(objectOf(payload)[type])
  if (type === 'text') return stringOr(part.body)
  if (type === 'button') return stringOr(part.text)
  if (type === 'interactive') return stringOr(objectOf(part.button_reply).title) ?? stringOr(objectOf(part.list_reply).title)
  return stringOr(part.caption)
}

/** An outbound message's text: a text's body, a caption, a template's body with its values filled in (when the catalog holds it). */
export function outboundText (type: string, payload: unknown, components?: unknown[]): string | null {
  const part = objectOf(objectOf(payload)[type])
  if (type === 'text') return stringOr(part.body)
  if (type === 'template') return components ? templateBody(components, part.components) : null
  if (type === 'interactive') return stringOr(objectOf(part.body).text)
  return stringOr(part.caption)
}

/** The catalog's BODY text with the send's body parameters in place of `{{1}}` or `{{name}}`. */
function templateBody (catalog: unknown[], sent: unknown): string | null {
  const body = catalog.map(objectOf).find(component => String(component.type).toUpperCase() === 'BODY')
  const text = stringOr(body?.text)
  if (text === null) return null
  const sentBody = (Array.isArray(sent) ? sent : []).map(objectOf).find(component => String(component.type).toLowerCase() === 'body')
  const parameters = (Array.isArray(sentBody?.parameters) ? sentBody.parameters : []).map(objectOf)
  return text.replace(/\{\{\s*([\w]+)\s*\}\}/g, (placeholder, key: string) => {
    const parameter = /^\d+$/.test(key) ? parameters[Number(key) - 1] : parameters.find(one => one.parameter_name === key)
    return parameter ? parameterText(parameter) ?? placeholder : placeholder
  })
}

function parameterText (parameter: Json): string | null {
  if (typeof parameter.text === 'string') return parameter.text
  const money = objectOf(parameter.currency)
  if (typeof money.fallback_value === 'string') return money.fallback_value
  const when = objectOf(parameter.date_time)
  return stringOr(when.fallback_value)
}

/** The template a send named: its name and language code. */
export function templateOf (payload: unknown): { name: string, language: string } | undefined {
  const template = objectOf(objectOf(payload).template)
  const language = objectOf(template.language).code
  return typeof template.name === 'string' && typeof language === 'string' ? { name: template.name, language } : undefined
}

/** What an inbound message answers: its `context.id` (a reply, or a template's quick-reply button). */
export function contextWamid (payload: unknown): string | undefined {
  const id = objectOf(objectOf(payload).context).id
  return typeof id === 'string' && id.length > 0 ? id : undefined
}

/** A completed WhatsApp Flow (interactive nfm_reply): its token and its response, parsed when it parses. */
export function flowReply (type: string, payload: unknown): { flowToken: string | null, response: unknown } | undefined {
  if (type !== 'interactive') return undefined
  const interactive = objectOf(objectOf(payload).interactive)
  if (interactive.type !== 'nfm_reply') return undefined
  const raw = objectOf(interactive.nfm_reply).response_json
  if (typeof raw !== 'string') return { flowToken: null, response: raw ?? null }
  try {
    const response: unknown = JSON.parse(raw)
    const token = objectOf(response).flow_token
    return { flowToken: typeof token === 'string' ? token : null, response }
  } catch {
    return { flowToken: null, response: raw }
  }
}
