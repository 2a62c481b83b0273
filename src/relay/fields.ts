import { RELAY_FIELDS } from '../../db/schema.js'

export { RELAY_FIELDS }

export function isRelayField (field: string): boolean {
  return (RELAY_FIELDS as readonly string[]).includes(field)
}
