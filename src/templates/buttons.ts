import { isRecord, placeholdersOf, type Problem } from './placeholders.js'

// upstream-facts.md 8.1: the buttons a BUTTONS component may hold, and how many of each
export const BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP', 'FLOW', 'MPM', 'CATALOG', 'SPM', 'VOICE_CALL'] as const
export const MAX_BUTTONS = 10
export const MAX_BUTTON_TEXT = 25
export const MAX_URL = 2000
export const MAX_PHONE_NUMBER = 20
export const MAX_COPY_CODE = 15
const MOST_OF: Record<string, number> = { URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1 }
const TEXT_REQUIRED = new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'FLOW', 'VOICE_CALL'])

/** Every problem of one BUTTONS component, `at` being its path (`components[3]`). */
export function buttonProblems (buttons: unknown, at: string): Problem[] {
  if (!Array.isArray(buttons) || buttons.length === 0) return [{ field: `${at}.buttons`, error: 'a BUTTONS component needs a list of 1 to 10 buttons' }]
  if (buttons.length > MAX_BUTTONS) return [{ field: `${at}.buttons`, error: `at most ${MAX_BUTTONS} buttons; found ${buttons.length}` }]
  const problems: Problem[] = []
  const types = buttons.map(button => isRecord(button) && typeof button.type === 'string' ? button.type.toUpperCase() : '')
  buttons.forEach((button, index) => problems.push(...oneButton(button, types[index], `${at}.buttons[${index}]`)))
  for (const [type, most] of Object.entries(MOST_OF)) {
    const indexes = types.flatMap((kind, index) => kind === type ? [index] : [])
    if (indexes.length > most) problems.push({ field: `${at}.buttons[${indexes[most]}].type`, error: `at most ${most} ${type} button${most === 1 ? '' : 's'}` })
  }
  const firstQuick = types.indexOf('QUICK_REPLY')
  const lastQuick = types.lastIndexOf('QUICK_REPLY')
  const apart = types.findIndex((type, index) => index > firstQuick && index < lastQuick && type !== 'QUICK_REPLY')
  if (firstQuick >= 0 && apart >= 0) problems.push({ field: `${at}.buttons[${apart}].type`, error: 'quick replies must sit together, apart from other buttons (QUICK_REPLY, QUICK_REPLY, URL is valid; QUICK_REPLY, URL, QUICK_REPLY is not)' })
  return problems
}

function oneButton (button: unknown, type: string, at: string): Problem[] {
  if (!isRecord(button)) return [{ field: at, error: 'a button is an object' }]
  if (!(BUTTON_TYPES as readonly string[]).includes(type)) return [{ field: `${at}.type`, error: `button type must be one of ${BUTTON_TYPES.join(', ')}` }]
  const problems: Problem[] = []
  if (button.text === undefined) {
    if (TEXT_REQUIRED.has(type)) problems.push({ field: `${at}.text`, error: `a ${type} button needs a text` })
  } else if (typeof button.text !== 'string' || button.text.trim() === '') {
    problems.push({ field: `${at}.text`, error: 'button text is a non-empty string' })
  } else if ([...button.text].length > MAX_BUTTON_TEXT) {
    problems.push({ field: `${at}.text`, error: `button text is at most ${MAX_BUTTON_TEXT} characters; found ${[...button.text].length}` })
  }
  if (type === 'URL') problems.push(...urlProblems(button, at))
  if (type === 'PHONE_NUMBER' && (typeof button.phone_number !== 'string' || !/^\+?[0-9]{1,20}$/.test(button.phone_number) || button.phone_number.length > MAX_PHONE_NUMBER)) {
    problems.push({ field: `${at}.phone_number`, error: `a PHONE_NUMBER button needs phone_number: digits, at most ${MAX_PHONE_NUMBER} characters` })
  }
  if (type === 'COPY_CODE' && (typeof button.example !== 'string' || button.example === '' || button.example.length > MAX_COPY_CODE)) {
    problems.push({ field: `${at}.example`, error: `a COPY_CODE button needs an example code of 1 to ${MAX_COPY_CODE} characters` })
  }
  return problems
}

function urlProblems (button: Record<string, unknown>, at: string): Problem[] {
  const url = button.url
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url)) return [{ field: `${at}.url`, error: 'a URL button needs url: an http(s) address' }]
  if (url.length > MAX_URL) return [{ field: `${at}.url`, error: `url is at most ${MAX_URL} characters; found ${url.length}` }]
  const found = placeholdersOf(url, 'positional', `${at}.url`)
  if ('problem' in found) return [found.problem]
  if (found.names.length > 1) return [{ field: `${at}.url`, error: 'a URL button has at most one placeholder' }]
  if (found.names.length === 0) return []
  if (!/\{\{1\}\}$/.test(url)) return [{ field: `${at}.url`, error: 'a URL button\'s placeholder may only be at the end of the url' }]
  const example = Array.isArray(button.example) ? button.example[0] : button.example
  if (typeof example !== 'string' || example === '') return [{ field: `${at}.example`, error: 'a URL with a placeholder needs example: ["value"]' }]
  return []
}
