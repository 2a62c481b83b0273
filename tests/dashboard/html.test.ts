import { describe, expect, it } from 'vitest'
import { escapeHtml, flag, html, trusted } from '../../src/dashboard/html.js'

describe('the html template tag', () => {
  it('escapes every interpolated value unless it is markup made by the tag or vouched for', () => {
    const name = `<script>alert('x')</script>&"`
    expect(html`<p title="${name}">${name}</p>`.markup).toBe('<p title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;</p>')
    expect(html`<ul>${['<a>', html`<li>ok</li>`]}</ul>`.markup).toBe('<ul>&lt;a&gt;<li>ok</li></ul>')
    expect(html`${trusted('<hr>')}`.markup).toBe('<hr>')
    expect(escapeHtml('plain')).toBe('plain')
  })

  it('renders nothing for null, undefined and booleans, and numbers as text', () => {
    expect(html`[${null}${undefined}${false}${true}${0}${12.5}]`.markup).toBe('[012.5]')
    expect(html`<input${flag('checked', true)}${flag('disabled', false)}>`.markup).toBe('<input checked>')
  })
})
