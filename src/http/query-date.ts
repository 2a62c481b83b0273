import { invalidRequest } from '../errors.js'

// what every database and Date round-trips: no year 0, no six-digit years (CONTRACT.md 12)
const EARLIEST = Date.UTC(1970, 0, 1)
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * A query's ISO 8601 date or date-time (its shape already checked by the route's pattern) as a Date,
 * or a 422 naming the parameter: a day that does not exist (2024-02-30), a time past 23:59:59, an
 * offset past ±23:59 or a date outside 1970–9999 is refused, not moved or handed to the database.
 */
export function queryDate (value: string, name: string): Date {
  // a `+` written unencoded in a query string arrives as a space
  const text = value.replace(' ', '+')
  const parts = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):(\d{2})))?$/.exec(text)
  const refuse = (why: string) => invalidRequest(`${name}: ${why}`, name)
  if (!parts) throw refuse('is not a valid date')
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = parts.slice(1).map(part => part === undefined ? undefined : Number(part)) as number[]
  if (year < 1970 || year > 9999) throw refuse('must be between 1970-01-01 and 9999-12-31')
  const calendar = new Date(Date.UTC(year, month - 1, day))
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) throw refuse('is not a day of the calendar')
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) throw refuse('is not a valid time of day or offset')
  const date = new Date(text)
  if (Number.isNaN(date.getTime())) throw refuse('is not a valid date')
  if (date.getTime() < EARLIEST || date.getTime() > LATEST) throw refuse('must be between 1970-01-01 and 9999-12-31')
  return date
}
