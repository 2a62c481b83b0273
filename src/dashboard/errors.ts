import { AppError } from '../errors.js'

/** Thrown on a page that needs a session: the dashboard's error handler turns it into a redirect to sign-in. */
export class SignInRequired extends AppError {
  constructor (readonly returnTo?: string) {
    super(401, 'unauthorized', 'Sign in to use the dashboard')
  }
}

export const csrfRejected = () =>
  new AppError(403, 'forbidden', 'This form has expired or did not come from this dashboard. Go back, reload the page and try again.')

/** The sign-in page, coming back to a dashboard path afterwards. */
export function signInUrl (returnTo?: string): string {
  const next = returnTo && safeReturnPath(returnTo)
  return next && next !== '/dashboard' ? `/dashboard/login?next=${encodeURIComponent(next)}` : '/dashboard/login'
}

const HERE = 'http://dashboard.invalid'

/**
 * Only a path of this dashboard, written as a Location header can carry it (percent-encoded ASCII),
 * or undefined: anything else could send a user who just signed in to another site, or break the
 * redirect (`/dashboard/€`). The value is resolved as a browser would resolve it, so `//evil`,
 * `/\\evil`, `/dashboard/../x` and the like are judged by where they really lead.
 */
export function safeReturnPath (path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length > 2000 || !path.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(path)) return undefined
  let resolved: URL
  try {
    resolved = new URL(path, HERE)
  } catch {
    return undefined
  }
  if (resolved.origin !== HERE) return undefined
  if (resolved.pathname !== '/dashboard' && !resolved.pathname.startsWith('/dashboard/')) return undefined
  if (resolved.pathname.startsWith('/dashboard//')) return undefined
  const local = resolved.pathname + resolved.search
  return /^[\x21-\x7e]+$/.test(local) ? local : undefined
}
