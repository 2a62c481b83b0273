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

/** Only a path of this dashboard: anything else could send a user who just signed in to another site. */
export function safeReturnPath (path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length > 2000) return undefined
  return /^\/dashboard(?:[/?][^\\\s]*)?$/.test(path) && !path.startsWith('/dashboard//') && !path.includes('/../') ? path : undefined
}
