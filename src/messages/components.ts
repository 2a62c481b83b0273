import { checker, type Json } from './checks.js'
import type { SendMessageBody } from './schemas.js'

const check = checker('components')

const STRING_VALUES = new Set(['text', 'payload', 'coupon_code'])
const OBJECT_VALUES = new Set(['currency', 'date_time', 'location', 'action'])
const MEDIA_VALUES = new Set(['image', 'document', 'video'])

/**
 * Template components in the upstream format: every parameter carries its value in the field named
 * by its type (text → text, currency → currency, …), and buttons say which button they fill.
 * Parameter types not listed here are passed through for the upstream to judge.
 */
export function checkComponents (components: NonNullable<SendMessageBody['components']>): void {
  components.forEach(function checkComponent (component, index) {
    const path = `components[${index}]`
    if (component.type.toLowerCase() === 'button') checkButton(component, path)
    component.parameters?.forEach(function checkParameter (parameter, parameterIndex) {
      checkValue(parameter, `${path}.parameters[${parameterIndex}]`)
    })
  })
}

function checkButton (component: { sub_type?: string, index?: string | number }, path: string): void {
  if (component.sub_type === undefined) check.fail(`${path}.sub_type`, 'is required for a button component')
  if (component.index === undefined) check.fail(`${path}.index`, 'is required for a button component')
  if (!/^[0-9]$/.test(String(component.index))) check.fail(`${path}.index`, "must be the button's position in the template, 0 to 9")
}

function checkValue (parameter: Json & { type: string }, path: string): void {
  const { type } = parameter
  const value = Object.hasOwn(parameter, type) ? parameter[type] : undefined
  if (value === undefined) check.fail(`${path}.${type}`, `is required for a parameter of type ${type}`)
  if (STRING_VALUES.has(type)) check.string(value, `${path}.${type}`)
  else if (OBJECT_VALUES.has(type)) check.object(value, `${path}.${type}`)
  else if (MEDIA_VALUES.has(type)) checkMediaValue(check.object(value, `${path}.${type}`), `${path}.${type}`)
}

function checkMediaValue (media: Json, path: string): void {
  if ((media.id === undefined) === (media.link === undefined)) check.fail(path, 'must have exactly one of id and link')
  if (media.id !== undefined) check.string(media.id, `${path}.id`)
  else check.httpUrl(media.link, `${path}.link`)
}
