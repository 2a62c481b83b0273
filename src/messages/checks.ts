import { invalidRequest } from '../errors.js'

export type Json = Record<string, unknown>

/**
 * Readers for the nested objects that are passed upstream as given (components, interactive): each
 * returns the value when it has the expected shape and otherwise throws a 422 naming its path.
 * `field` is the top-level request field the path belongs to.
 */
export function checker (field: string) {
  function fail (path: string, rule: string): never {
    throw invalidRequest(`${path} ${rule}`, field)
  }

  return {
    fail,

    object (value: unknown, path: string): Json {
      if (!isObject(value)) fail(path, 'must be an object')
      return value
    },

    string (value: unknown, path: string, bounds: { min?: number, max?: number } = {}): string {
      if (typeof value !== 'string') fail(path, 'must be a string')
      const { min = 1, max } = bounds
      if (value.length < min) fail(path, min === 1 ? 'must not be empty' : `must be at least ${min} characters long`)
      if (max !== undefined && value.length > max) fail(path, `must be at most ${max} characters long`)
      return value
    },

    array (value: unknown, path: string, bounds: { min?: number, max?: number } = {}): unknown[] {
      if (!Array.isArray(value)) fail(path, 'must be an array')
      const { min = 0, max } = bounds
      if (value.length < min) fail(path, `must have at least ${min} ${min === 1 ? 'entry' : 'entries'}`)
      if (max !== undefined && value.length > max) fail(path, `must have at most ${max} entries`)
      return value
    },

    httpUrl (value: unknown, path: string): string {
      const text = this.string(value, path, { max: 2048 })
      if (!isHttpUrl(text)) fail(path, 'must be an absolute http(s) URL')
      return text
    }
  }
}

export function isObject (value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function isHttpUrl (text: string): boolean {
  if (/\s/.test(text)) return false
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}
