// Outbound dashboard: progressive enhancement only. Every page works without this file; with it,
// the compose form shows only the fields of the chosen type, secrets copy in one click, and the
// message pages follow new messages and status changes without a reload, and campaigns show their progress live.
(function () {
  'use strict'

  var POLL_MS = 2000
  // as html.ts: a value with a bidi control or right-to-left script is isolated, so it cannot reorder the page
  var BIDI_SENSITIVE = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE]|[\uD802\uD803\uD83A\uD83B]/

  /** The element's text becomes value, in a <bdi> when it needs one; never as markup. */
  function setText (element, value) {
    if (!BIDI_SENSITIVE.test(value)) {
      element.textContent = value
      return
    }
    var isolate = document.createElement('bdi')
    isolate.textContent = value
    element.replaceChildren(isolate)
  }

  /** Fills a row or block from display strings, by data-field; never as markup. */
  function fill (root, values) {
    root.querySelectorAll('[data-field]').forEach(function (element) {
      var name = element.getAttribute('data-field')
      if (!Object.prototype.hasOwnProperty.call(values, name)) return
      var value = values[name] == null ? '' : String(values[name])
      if (name === 'href') {
        element.setAttribute('href', value)
        return
      }
      setText(element, value)
      if (name === 'status') element.setAttribute('data-status', value)
    })
  }

  function clone (templateId) {
    return document.getElementById(templateId).content.firstElementChild.cloneNode(true)
  }

  /** Fetches url every POLL_MS while the page is visible; stops for good once the session is gone. */
  function poll (url, apply, statusElement) {
    var stopped = false
    function tick () {
      if (stopped) return
      if (document.hidden) {
        setTimeout(tick, POLL_MS)
        return
      }
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (response) {
          if (response.status === 401) {
            stopped = true
            if (statusElement) statusElement.textContent = 'Signed out: reload the page to sign in again'
            return
          }
          if (!response.ok) throw new Error('HTTP ' + response.status)
          return response.json().then(apply)
        })
        .catch(function () { if (statusElement) statusElement.textContent = 'Reconnecting…' })
        .then(function () { setTimeout(tick, POLL_MS) })
    }
    setTimeout(tick, POLL_MS)
  }

  function setUpCopyButtons () {
    document.querySelectorAll('[data-copy]').forEach(function (button) {
      var input = document.getElementById(button.getAttribute('data-copy'))
      var status = document.querySelector('[data-copy-status]')
      function report (copied) {
        if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Select the secret and copy it with Ctrl+C (⌘C on a Mac).'
        if (copied) button.textContent = 'Copied'
      }
      function fallback () {
        input.focus()
        input.select()
        var copied = false
        try { copied = document.execCommand('copy') } catch (error) { copied = false }
        report(copied)
      }
      button.addEventListener('click', function () {
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(function () { report(true) }, fallback)
        else fallback()
      })
    })
    document.querySelectorAll('[data-secret]').forEach(function (input) {
      input.addEventListener('focus', function () { input.select() })
    })
  }

  function setUpCompose () {
    var form = document.querySelector('[data-compose]')
    if (!form) return
    var template = form.querySelector('select[name="template"]')
    var preview = form.querySelector('[data-template-preview]')
    function showChosenType () {
      var checked = form.querySelector('input[name="type"]:checked')
      var type = checked ? checked.value : 'text'
      form.querySelectorAll('[data-types]').forEach(function (section) {
        var shown = section.getAttribute('data-types').split(' ').indexOf(type) !== -1
        section.hidden = !shown
        // Hidden fields are not sent: a leftover caption must not turn a text message into a 422.
        section.querySelectorAll('input, select, textarea').forEach(function (control) { control.disabled = !shown })
      })
    }
    function showTemplateBody () {
      var option = template && template.selectedOptions[0]
      var body = option && option.getAttribute('data-body')
      if (!preview) return
      preview.textContent = body ? 'Body: ' : ''
      if (body) preview.appendChild(document.createElement('bdi')).textContent = body
    }
    form.addEventListener('change', function () {
      showChosenType()
      showTemplateBody()
    })
    showChosenType()
    showTemplateBody()
  }

  function setUpMessageList () {
    var table = document.querySelector('table[data-live]')
    if (!table) return
    var body = table.tBodies[0]
    var empty = table.closest('section').querySelector('.empty')
    poll(table.getAttribute('data-live'), function (data) {
      var anchor = body.firstElementChild
      data.messages.forEach(function (message) {
        var row = body.querySelector('tr[data-id="' + CSS.escape(message.id) + '"]')
        if (row) {
          fill(row, message)
          return
        }
        // Rows come newest first, and anything not shown yet is newer than what is.
        row = clone('message-row')
        row.setAttribute('data-id', message.id)
        row.classList.add('is-new')
        fill(row, message)
        body.insertBefore(row, anchor)
      })
      if (empty && body.rows.length > 0) empty.hidden = true
    }, document.querySelector('[data-live-status]'))
  }

  function setUpMessageDetail () {
    var live = document.querySelector('[data-live-message]')
    if (!live) return
    var history = live.querySelector('[data-history]')
    var shown = ''
    poll(live.getAttribute('data-live-message'), function (data) {
      fill(live.querySelector('.facts'), data.message)
      // "Queued since …" says nothing true once the message has moved on
      live.querySelectorAll('[data-while-status]').forEach(function (note) {
        note.hidden = note.getAttribute('data-while-status') !== data.message.status
      })
      var latest = JSON.stringify(data.history)
      if (latest === shown) return
      shown = latest
      history.textContent = ''
      data.history.forEach(function (event) {
        var row = clone('event-row')
        fill(row, event)
        history.appendChild(row)
      })
    })
  }

  /** A campaign's card: its bar, counts, status, failure reasons and which buttons apply, while it is under way. */
  function setUpCampaigns () {
    document.querySelectorAll('[data-live-campaign]').forEach(function (card) {
      var ended = false
      poll(card.getAttribute('data-live-campaign'), function (data) {
        if (ended) return
        var status = data.campaign.status
        var bar = card.querySelector('progress')
        bar.value = data.campaign.progress
        bar.textContent = data.campaign.progress + '%'
        fill(card, { progress: data.campaign.progress + '%', total: data.campaign.total, 'paused-note': data.campaign.paused_note })
        var note = card.querySelector('[data-field="paused-note"]')
        if (note) note.hidden = !data.campaign.paused_note
        Object.keys(data.counts).forEach(function (bucket) {
          var cell = card.querySelector('[data-count="' + bucket + '"]')
          if (cell) cell.textContent = String(data.counts[bucket])
        })
        var badge = card.querySelector('[data-field="status-badge"] .badge')
        if (badge) {
          badge.textContent = data.campaign.status_label
          badge.setAttribute('data-status', status)
        }
        var failures = card.querySelector('[data-failures]')
        var list = failures.querySelector('ul')
        list.textContent = ''
        data.failures.forEach(function (failure) {
          var item = document.createElement('li')
          var code = document.createElement('code')
          code.textContent = failure.code
          item.appendChild(code)
          item.appendChild(document.createTextNode(' '))
          item.appendChild(document.createElement('bdi')).textContent = failure.text
          list.appendChild(item)
        })
        failures.hidden = data.failures.length === 0
        var live = status !== 'completed' && status !== 'cancelled'
        card.querySelector('[data-actions]').hidden = !live
        card.querySelector('[data-when="pause"]').hidden = !live || status === 'paused'
        card.querySelector('[data-when="resume"]').hidden = status !== 'paused'
        card.querySelector('[data-when="cancel"]').hidden = !live
        ended = !live
      })
    })
  }

  /** The template form's phone preview, redrawn at each keystroke: as phonePreview in views/template-form.ts draws it. */
  function setUpTemplatePreview () {
    var form = document.querySelector('[data-template-form]')
    var phone = document.querySelector('[data-template-phone]')
    if (!form || !phone) return
    function value (name) {
      var control = form.elements.namedItem(name)
      return control ? control.value : ''
    }
    function filledIn (text, examples) {
      return text.replace(/\{\{(\d+)\}\}/g, function (placeholder, n) { return examples[Number(n) - 1] || placeholder })
    }
    function draw () {
      var header = phone.querySelector('[data-preview="header"]')
      var footer = phone.querySelector('[data-preview="footer"]')
      var examples = value('body_examples').split(/\r?\n/).map(function (line) { return line.trim() }).filter(Boolean)
      setText(header, filledIn(value('header_text'), [value('header_example').trim()]))
      header.hidden = value('header_text').trim() === ''
      setText(phone.querySelector('[data-preview="body"]'), filledIn(value('body'), examples))
      setText(footer, value('footer'))
      footer.hidden = value('footer').trim() === ''
      var list = phone.querySelector('[data-preview="buttons"]')
      list.textContent = ''
      form.querySelectorAll('[data-button-row]').forEach(function (row) {
        var kind = row.querySelector('select').value
        if (!kind) return
        var item = document.createElement('li')
        item.setAttribute('data-kind', kind)
        setText(item, row.querySelector('input').value)
        list.appendChild(item)
      })
    }
    form.addEventListener('input', draw)
    form.addEventListener('change', draw)
    draw()
  }

  setUpCopyButtons()
  setUpCompose()
  setUpTemplatePreview()
  setUpMessageList()
  setUpMessageDetail()
  setUpCampaigns()
})()
