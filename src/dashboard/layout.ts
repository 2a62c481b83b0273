import { assetUrl } from './assets.js'
import { html, identifier, type SafeHtml } from './html.js'
import { csrfField, notice, planBadge, type Notice } from './parts.js'

export type NavKey = 'overview' | 'compose' | 'messages' | 'conversations' | 'inbound' | 'templates' | 'connection' | 'keys' | 'webhooks' | 'relays' | 'audit' | 'suppressions' | 'usage' | 'campaigns' | 'privacy'

/** What every signed-in page shows around its content. */
export interface Frame {
  title: string
  active?: NavKey
  email: string
  workspace: { name: string, plan: string }
  csrfToken: string
  notice?: Notice
}

const NAV: [NavKey, string, string][] = [
  ['overview', 'Overview', '/dashboard'],
  ['compose', 'Send a message', '/dashboard/compose'],
  ['messages', 'Messages', '/dashboard/messages'],
  ['campaigns', 'Campaigns', '/dashboard/campaigns'],
  ['conversations', 'Conversations', '/dashboard/conversations'],
  ['inbound', 'Inbound', '/dashboard/inbound'],
  ['templates', 'Templates', '/dashboard/templates'],
  ['connection', 'Connection', '/dashboard/connection']
]

export function layout (frame: Frame, content: SafeHtml): SafeHtml {
  // what the phone's closed menu says: the section this page belongs to (its active link)
  let current = frame.title
  const link = ([key, label, href]: [NavKey, string, string]) => {
    if (frame.active === key) current = label
    return html`<li><a href="${href}"${frame.active === key ? html` aria-current="page"` : ''}>${label}</a></li>`
  }
  const items = html`<ul>
      ${NAV.map(link)}
      <li class="group" aria-hidden="true">Audience</li>
      ${link(['suppressions', 'Suppressions', '/dashboard/suppressions'])}
      ${link(['usage', 'Usage', '/dashboard/usage'])}
      <li class="group" aria-hidden="true">Developer Studio</li>
      ${link(['keys', 'API keys', '/dashboard/keys'])}
      ${link(['webhooks', 'Webhooks', '/dashboard/webhooks'])}
      ${link(['relays', 'Relays', '/dashboard/relays'])}
      <li><a href="/docs">API reference</a></li>
      <li class="group" aria-hidden="true">Settings</li>
      ${link(['privacy', 'Privacy', '/dashboard/privacy'])}
      ${link(['audit', 'Audit log', '/dashboard/audit'])}
    </ul>`
  return document(frame.title, html`
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/dashboard"><span class="brand-mark" aria-hidden="true">O</span>Outbound</a>
  <span class="workspace"><span class="workspace-name">${identifier(frame.workspace.name)}</span>${planBadge(frame.workspace.plan)}</span>
  <div class="account">
    <span class="email">${identifier(frame.email)}</span>
    <form method="post" action="/dashboard/logout">${csrfField(frame.csrfToken)}<button type="submit" class="secondary small">Sign out</button></form>
  </div>
</header>
<div class="shell">
  <nav class="sidebar" aria-label="Dashboard">
    <details class="nav-menu">
      <summary><span class="nav-menu-label">Menu</span><span class="nav-menu-current">${current}</span></summary>
      ${items}
    </details>
  </nav>
  <main id="main" tabindex="-1">
    <h1>${frame.title}</h1>
    ${frame.notice && notice(frame.notice)}
    ${content}
  </main>
</div>`)
}

/** A page without the navigation: sign-in, and errors before sign-in. */
export function bareLayout (title: string, content: SafeHtml): SafeHtml {
  return document(title, html`<main id="main" class="auth">${content}</main>`)
}

function document (title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Outbound</title>
<link rel="icon" type="image/svg+xml" href="${assetUrl('favicon.svg')}">
<link rel="stylesheet" href="${assetUrl('dashboard.css')}">
<script src="${assetUrl('dashboard.js')}" defer></script>
</head>
<body>${body}</body>
</html>
`
}
