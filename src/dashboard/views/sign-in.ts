import { html, type SafeHtml } from '../html.js'
import { bareLayout } from '../layout.js'
import { field, notice, type Notice } from '../parts.js'

export interface SignInView { csrfToken: string, email?: string, next?: string, notice?: Notice }

export function signInPage (view: SignInView): SafeHtml {
  return bareLayout('Sign in', html`<div class="auth-card">
  <div class="brand"><span class="brand-mark" aria-hidden="true">O</span>Outbound</div>
  <h1>Sign in to your dashboard</h1>
  ${view.notice && notice(view.notice)}
  <form class="form" method="post" action="/dashboard/login">
    <input type="hidden" name="_csrf" value="${view.csrfToken}">
    ${view.next && html`<input type="hidden" name="next" value="${view.next}">`}
    ${field({ name: 'email', label: 'Email', type: 'email', value: view.email, required: true, autocomplete: 'username', maxlength: 320 })}
    ${field({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password', maxlength: 1024 })}
    <button type="submit">Sign in</button>
  </form>
  <p class="hint auth-foot">No account yet? An operator creates one with <code>outbound user create</code>.</p>
</div>`)
}
