import { invalidParameter, requiredParameter } from './graph-error.js'

export type Json = Record<string, unknown>

export function isObject (value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function requireObject (value: unknown, name: string): Json {
  if (value === undefined) throw requiredParameter(name)
  if (!isObject(value)) throw invalidParameter(`Param ${name} must be a JSON object.`)
  return value
}

export function requireString (value: unknown, name: string, max?: number): string {
  if (value === undefined || value === null) throw requiredParameter(name)
  if (typeof value !== 'string') throw invalidParameter(`Param ${name} must be a string.`)
  if (max !== undefined) checkLength(value, name, max)
  return value
}

export function checkLength (value: string, name: string, max: number): void {
  if (value.length > max) throw invalidParameter(`Param ${name} must be at most ${max} characters long.`)
}

export function optionalString (value: unknown, name: string, max: number): string | undefined {
  return value === undefined ? undefined : requireString(value, name, max)
}
