import { AppError, databaseUnavailable, limitsUnavailable } from '../errors.js'
import { classify } from './classify.js'

/**
 * The answer to a request that met a dependency failing for now: 503 with Retry-After, the same on
 * every route, API and dashboard alike (CONTRACT.md 12). Undefined for anything else.
 */
export function unavailableAnswer (error: unknown): AppError | undefined {
  if (error instanceof AppError) return undefined
  const fault = classify(error)
  if (fault?.retry !== 'later') return undefined
  if (fault.dependency === 'redis') return limitsUnavailable()
  if (fault.dependency === 'database') return databaseUnavailable()
  return undefined
}
