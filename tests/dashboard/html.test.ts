import { describe, expect, it } from 'vitest'
import { escapeHtml, flag, html, identifier, trusted } from '../../src/dashboard/html.js'

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

  it('isolates a value with a bidi control or right-to-left script where it lands in text, and shows controls where markup cannot go', () => {
    const name = 'abc\u202Edef'
    expect(html`<p>Revoke “${name}”?</p>`.markup).toBe('<p>Revoke “<bdi>abc\u202Edef</bdi>”?</p>')
    expect(html`<p>${'שלום'} ${'plain'}</p>`.markup).toBe('<p><bdi>שלום</bdi> plain</p>')
    expect(html`<code class="id">${name}</code> ${name}`.markup).toBe('<code class="id">abc[U+202E]def</code> <bdi>abc\u202Edef</bdi>')
    expect(html`<img alt="${name}" title="x ${name}">`.markup).toBe('<img alt="abc[U+202E]def" title="x abc[U+202E]def">')
    expect(html`<title>${name} · Outbound</title><option value="${name}">${name}</option>`.markup).toBe('<title>abc[U+202E]def · Outbound</title><option value="abc\u202Edef">abc[U+202E]def</option>')
    expect(html`<textarea dir="auto">${name}</textarea><input value="${name}">`.markup).toBe('<textarea dir="auto">abc\u202Edef</textarea><input value="abc\u202Edef">')
    expect(identifier('\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061C')).toBe('[U+202A][U+202B][U+202C][U+202D][U+2066][U+2067][U+2068][U+2069][U+200E][U+200F][U+061C]')
  })
})
