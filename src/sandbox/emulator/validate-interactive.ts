import { invalidParameter, invalidValue, requiredParameter } from './graph-error.js'
import { checkLength, isObject, requireObject, requireString, type Json } from './json.js'

const TYPES = ['button', 'list', 'cta_url', 'flow', 'location_request_message', 'product', 'product_list', 'catalog_message', 'call_permission_request']
const BODY_MAX: Record<string, number> = { list: 4096 }
const BODY_REQUIRED = new Set(['button', 'list', 'cta_url', 'flow', 'location_request_message', 'product_list', 'catalog_message'])

export function validateInteractive (content: unknown): void {
  const interactive = requireObject(content, 'interactive')
  const type = requireString(interactive.type, "interactive['type']")
  if (!TYPES.includes(type)) throw invalidParameter(`Param interactive['type'] must be one of {${TYPES.join(', ').toUpperCase()}} - got "${type}".`)
  checkParts(interactive, type)
  if (type === 'button') checkButtons(requireObject(interactive.action, "interactive['action']"))
  if (type === 'list') checkList(requireObject(interactive.action, "interactive['action']"))
  if (type === 'cta_url') checkCtaUrl(requireObject(interactive.action, "interactive['action']"))
}

function checkParts (interactive: Json, type: string): void {
  if (interactive.body !== undefined || BODY_REQUIRED.has(type)) {
    const body = requireObject(interactive.body, "interactive['body']")
    checkLength(requireString(body.text, "interactive['body']['text']"), "interactive['body']['text']", BODY_MAX[type] ?? 1024)
  }
  if (interactive.footer !== undefined) {
    requireString(requireObject(interactive.footer, "interactive['footer']").text, "interactive['footer']['text']", 60)
  }
  if (isObject(interactive.header) && interactive.header.type === 'text') {
    requireString(interactive.header.text, "interactive['header']['text']", 60)
  }
}

function checkButtons (action: Json): void {
  const buttons = action.buttons
  if (!Array.isArray(buttons)) throw requiredParameter("interactive['action']['buttons']")
  if (buttons.length < 1 || buttons.length > 3) {
    throw invalidValue(`Param interactive['action']['buttons'] must have between 1 and 3 elements - got ${buttons.length}.`)
  }
  const titles = new Set<string>()
  const ids = new Set<string>()
  buttons.forEach(function checkButton (button: unknown, index) {
    const name = `interactive['action']['buttons'][${index}]['reply']`
    const reply = requireObject(requireObject(button, `interactive['action']['buttons'][${index}]`).reply, name)
    const title = requireString(reply.title, `${name}['title']`)
    if (title.length < 1 || title.length > 20) throw invalidValue('Button title length invalid. Min length: 1, Max length: 20')
    const id = requireString(reply.id, `${name}['id']`, 256)
    if (titles.has(title) || ids.has(id)) throw invalidValue('Button title or id is not unique.')
    titles.add(title)
    ids.add(id)
  })
}

function checkList (action: Json): void {
  const button = requireString(action.button, "interactive['action']['button']")
  if (button.length < 1 || button.length > 20) throw invalidValue('Button label length invalid. Min length: 1, Max length: 20')
  const sections = action.sections
  if (!Array.isArray(sections) || sections.length === 0) throw requiredParameter("interactive['action']['sections']")
  if (sections.length > 10) throw invalidValue('Too many sections. Max: 10')
  let rows = 0
  sections.forEach(function checkSection (entry: unknown, index) {
    const name = `interactive['action']['sections'][${index}]`
    const section = requireObject(entry, name)
    if (section.title !== undefined || sections.length > 1) requireString(section.title, `${name}['title']`, 24)
    if (!Array.isArray(section.rows) || section.rows.length === 0) throw requiredParameter(`${name}['rows']`)
    section.rows.forEach(function checkRow (row: unknown, rowIndex) {
      checkListRow(requireObject(row, `${name}['rows'][${rowIndex}]`), `${name}['rows'][${rowIndex}]`)
    })
    rows += section.rows.length
  })
  if (rows > 10) throw invalidValue(`Total row count exceed max allowed count: 10 - got ${rows}.`)
}

function checkListRow (row: Json, name: string): void {
  requireString(row.id, `${name}['id']`, 200)
  const title = requireString(row.title, `${name}['title']`)
  if (title.length < 1 || title.length > 24) throw invalidValue('Row title length invalid. Min length: 1, Max length: 24')
  if (row.description !== undefined) requireString(row.description, `${name}['description']`, 72)
}

function checkCtaUrl (action: Json): void {
  const parameters = requireObject(action.parameters, "interactive['action']['parameters']")
  const text = requireString(parameters.display_text, "interactive['action']['parameters']['display_text']")
  if (text.length < 1 || text.length > 20) throw invalidValue('Display text length invalid. Min length: 1, Max length: 20')
  requireString(parameters.url, "interactive['action']['parameters']['url']")
}
