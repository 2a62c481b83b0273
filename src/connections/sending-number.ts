import { invalidRequest } from '../errors.js'
import type { PhoneNumber } from '../store/connections.js'

/** The number a request sends from: the one it names (422 unless it is active in the workspace), else the workspace's first. */
export function sendingNumber (numbers: PhoneNumber[], wanted: string | undefined): PhoneNumber {
  if (wanted === undefined) return numbers[0]
  const number = numbers.find(candidate => candidate.phoneNumberId === wanted)
  if (number) return number
  const active = numbers.map(candidate => candidate.phoneNumberId).join(', ')
  throw invalidRequest(`phone_number_id ${wanted} is not an active number of this workspace (active: ${active})`, 'phone_number_id')
}
